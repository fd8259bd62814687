// The `edit` and `multi_edit` tools: exact replacements on a file the agent has read and
// that has not changed since; encoding, line endings and final newline kept; atomic write;
// the result is a unified diff.

import { mkdir, readFile, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import * as z from 'zod'
import { type SchemaOf, toolParameters } from '../../core/tool-parameters.js'
import type { ToolDefinition, ToolExecution, ToolOutput } from '../../plugin-api/index.js'
import { applyEdits, type EditSpec } from './apply-edits.js'
import { formatDiff, type PatchHunk, patchHunks } from './diff.js'
import { outsideNote, realOrSelf } from './paths.js'
import { EDIT_DESCRIPTION, MULTI_EDIT_DESCRIPTION } from './prompts.js'
import {
  checkedToolPath,
  commitChange,
  describeFsError,
  type FsToolServices,
  failure,
  isRefusal,
} from './shared.js'
import { decodeText, encodeText, fromModelText, looksBinary, toModelText } from './text-file.js'

/** The fields of one replacement (a function: built with the schema that uses them). */
const editFields = () => ({
  old_string: z.string().describe('The exact text to replace.'),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence (default false: it must match once).'),
})

export const editParameters = toolParameters('edit', () =>
  z.object({
    file_path: z
      .string()
      .min(1)
      .describe('The file to edit (absolute, or relative to the working directory).'),
    ...editFields(),
  }),
)

export const multiEditParameters = toolParameters('multi_edit', () =>
  z.object({
    file_path: z
      .string()
      .min(1)
      .describe('The file to edit (absolute, or relative to the working directory).'),
    edits: z.array(z.object(editFields())).min(1).describe('Replacements applied in order; all or nothing.'),
  }),
)

export function createEditTool(services: FsToolServices): ToolDefinition<SchemaOf<typeof editParameters>> {
  return {
    name: 'edit',
    description: EDIT_DESCRIPTION,
    get parameters() {
      return editParameters.schema()
    },
    parametersJsonSchema: editParameters.jsonSchema,
    execute: (args, execution) => editFile(services, execution, args.file_path, [args], 'edit'),
  }
}

export function createMultiEditTool(
  services: FsToolServices,
): ToolDefinition<SchemaOf<typeof multiEditParameters>> {
  return {
    name: 'multi_edit',
    description: MULTI_EDIT_DESCRIPTION,
    get parameters() {
      return multiEditParameters.schema()
    },
    parametersJsonSchema: multiEditParameters.jsonSchema,
    execute: (args, execution) => editFile(services, execution, args.file_path, args.edits, 'multi_edit'),
  }
}

async function editFile(
  services: FsToolServices,
  execution: ToolExecution,
  filePath: string,
  edits: readonly EditSpec[],
  tool: 'edit' | 'multi_edit',
): Promise<ToolOutput> {
  const target = checkedToolPath(services, execution, filePath, 'write')
  if (isRefusal(target)) return target
  const real = realOrSelf(target.absolute)
  let before: Buffer
  try {
    if ((await stat(real)).isDirectory()) return failure(`${target.display} is a folder, not a file`)
    before = await readFile(real)
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === 'ENOENT' &&
      edits.length === 1 &&
      edits[0]!.old_string === ''
    ) {
      return createWithEdit(services, execution, filePath, edits, tool)
    }
    return failure(describeFsError(error, target.display))
  }
  if (looksBinary(before)) return failure(`${target.display} is a binary file; edit only changes text files`)
  const fresh = await services.reads.checkFresh(execution, real, target.display, before)
  if (!fresh.ok) return failure(fresh.message)
  const decoded = decodeText(before)
  const text = toModelText(decoded)
  const outcome = applyEdits(text, edits, target.display)
  if (!outcome.ok) return failure(outcome.message)
  try {
    await commitChange(
      services,
      execution,
      target,
      before,
      encodeText(fromModelText(outcome.text, decoded.eol), decoded.encoding),
    )
  } catch (error) {
    return failure(describeFsError(error, target.display))
  }
  const count = `${outcome.replacements} replacement${outcome.replacements === 1 ? '' : 's'}`
  const hunks = patchHunks(text, outcome.text)
  return {
    content: `Edited ${target.display} (${count})${outsideNote(target)}\n${formatDiff(target.display, hunks)}`,
    details: editResponse(tool, target.absolute, edits, text, hunks),
  }
}

async function createWithEdit(
  services: FsToolServices,
  execution: ToolExecution,
  filePath: string,
  edits: readonly EditSpec[],
  tool: 'edit' | 'multi_edit',
): Promise<ToolOutput> {
  const content = edits[0]!.new_string
  const target = checkedToolPath(services, execution, filePath, 'write')
  if (isRefusal(target)) return target
  try {
    await mkdir(dirname(realOrSelf(target.absolute)), { recursive: true })
    await commitChange(services, execution, target, null, Buffer.from(content, 'utf8'))
  } catch (error) {
    return failure(describeFsError(error, target.display))
  }
  const hunks = patchHunks('', content)
  return {
    content: `Created ${target.display}${outsideNote(target)}\n${formatDiff(target.display, hunks)}`,
    details: editResponse(tool, target.absolute, edits, '', hunks),
  }
}

/**
 * Claude Code's Edit result (`filePath`, `oldString`, `newString`, `originalFile`,
 * `structuredPatch`, `userModified`, `replaceAll`) or MultiEdit result (`filePath`, `edits`,
 * `originalFileContents`, `structuredPatch`, `userModified`), which its PostToolUse hooks get
 * as `tool_response`. Kept in memory for hooks only, never logged or sent to the model.
 */
function editResponse(
  tool: 'edit' | 'multi_edit',
  filePath: string,
  edits: readonly EditSpec[],
  original: string,
  structuredPatch: readonly PatchHunk[],
) {
  if (tool === 'multi_edit') {
    return {
      hookResponse: {
        filePath,
        edits: edits.map((edit) => ({ ...edit })),
        originalFileContents: original,
        structuredPatch,
        userModified: false,
      },
    }
  }
  const edit = edits[0]!
  return {
    hookResponse: {
      filePath,
      oldString: edit.old_string,
      newString: edit.new_string,
      originalFile: original,
      structuredPatch,
      userModified: false,
      replaceAll: edit.replace_all === true,
    },
  }
}
