// Finds the instruction files of a session: `$DSH_HOME/AGENTS.md`, then from the project
// root down to the cwd one file per folder — `AGENTS.md`, or `CLAUDE.md` where there is none.

import { join } from 'node:path'
import { MAX_PROJECT_FILE_BYTES, readCappedText } from '../core/capped-file.js'
import { DshError } from '../core/errors.js'
import { findProjectRoot, foldersFromRoot } from '../core/project-root.js'

export const INSTRUCTION_FILE_NAMES = ['AGENTS.md', 'CLAUDE.md'] as const
/** A longer file is cut, with a note, so one file cannot fill the context. */
export const MAX_INSTRUCTION_FILE_CHARS = 40_000

export interface InstructionFile {
  readonly path: string
  readonly text: string
  readonly scope: 'user' | 'project'
}

/** The error code of an instruction file past its cap (reported, never thrown). */
const TOO_LARGE = 'INSTRUCTIONS_TOO_LARGE'

/** The file's text; undefined when missing, unreadable or past MAX_PROJECT_FILE_BYTES (then a problem line). */
function readIfPresent(path: string, problems: string[]): string | undefined {
  try {
    return readCappedText(path, {
      maxBytes: MAX_PROJECT_FILE_BYTES,
      what: 'instruction file',
      code: TOO_LARGE,
    })
  } catch (error) {
    if (error instanceof DshError) problems.push(`${error.message}; not loaded`)
    // Missing or unreadable: this folder has no instructions.
    return undefined
  }
}

/** The instruction files for `cwd`; files refused for their size are skipped with a line in `problems`. */
export function discoverInstructionFiles(
  cwd: string,
  home: string | undefined,
  problems: string[] = [],
): InstructionFile[] {
  const found: InstructionFile[] = []
  if (home) {
    const path = join(home, 'AGENTS.md')
    const text = readIfPresent(path, problems)
    if (text !== undefined) found.push({ path, text, scope: 'user' })
  }
  for (const folder of foldersFromRoot(findProjectRoot(cwd), cwd)) {
    for (const name of INSTRUCTION_FILE_NAMES) {
      const path = join(folder, name)
      const text = readIfPresent(path, problems)
      if (text === undefined) continue
      found.push({ path, text, scope: 'project' })
      break
    }
  }
  return found
}

/** The one context message the model gets; identical files give identical bytes. */
export function renderInstructions(files: readonly InstructionFile[]): string {
  if (files.length === 0) return ''
  const parts = [
    'Instructions for this work, from the user and the project (later files are more specific and win where they differ). Follow them.',
  ]
  for (const file of files) {
    const origin =
      file.scope === 'user' ? "the user's instructions for every project" : 'project instructions'
    let text = file.text.trimEnd()
    if (text.length > MAX_INSTRUCTION_FILE_CHARS) {
      text = `${text.slice(0, MAX_INSTRUCTION_FILE_CHARS)}\n[cut: the file has ${file.text.length} characters; read the rest with the read tool]`
    }
    parts.push(`<instructions path="${file.path}" origin="${origin}">\n${text}\n</instructions>`)
  }
  return parts.join('\n\n')
}
