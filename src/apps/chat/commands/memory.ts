// `/memory` (which instruction files the model gets, and where to edit them) and the `#`
// prefix, which appends a note line to the project's AGENTS.md (or, with `#~`, the user's
// $DSH_HOME/AGENTS.md), as Claude Code's `#` does; the next turn's instructions carry it.

import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { findProjectRoot } from '../../../core/project-root.js'
import {
  discoverInstructionFiles,
  lastInstructions,
  refreshInstructions,
} from '../../../instructions/index.js'
import { type ChatHost, safe } from '../chat-host.js'

/**
 * A one-line input starting with `#` (not `##…`, a pasted heading) and holding some text is a
 * note, not a prompt. A `~` right after the `#` is the user-file marker, never the text: `#~`
 * alone is a prompt, as `#` alone is.
 */
export function isMemoryNote(text: string): boolean {
  const line = text.trim()
  return !line.includes('\n') && /^#(?!#)(?:~|(?!~))\s*\S/.test(line)
}

/** Where a note goes: the user's file for `#~`, else the project root's AGENTS.md (its CLAUDE.md when that is the one loaded). */
export function noteTarget(
  line: string,
  cwd: string,
  home: string,
): { path: string; scope: 'user' | 'project' } {
  if (line.startsWith('#~')) return { path: join(home, 'AGENTS.md'), scope: 'user' }
  const root = findProjectRoot(cwd)
  const agents = join(root, 'AGENTS.md')
  const claude = join(root, 'CLAUDE.md')
  return { path: !existsSync(agents) && existsSync(claude) ? claude : agents, scope: 'project' }
}

/** Appends `- <note>` to the target file and reloads the session's instructions. */
export function addNote(chat: ChatHost, line: string): void {
  const trimmed = line.trim()
  const note = trimmed.replace(/^#~?\s*/, '')
  const { path, scope } = noteTarget(trimmed, chat.agent.cwd, chat.plan.config.home)
  const before = existsSync(path) ? readFileSync(path, 'utf8') : ''
  const gap = before === '' || before.endsWith('\n') ? '' : '\n'
  appendFileSync(path, `${gap}- ${note}\n`)
  refreshInstructions(chat.agent, chat.plan.config.home, (problem) =>
    chat.say(chat.colors.yellow(safe(problem))),
  )
  chat.say(chat.colors.dim(`noted in ${scope === 'user' ? 'your' : "the project's"} ${safe(path)}`))
  if (scope === 'project')
    chat.say(chat.colors.dim('(start a note with #~ to put it in your own file for every project)'))
}

/** `/memory`: reloads the instruction files, then lists the ones the model gets, in order, and where notes would go. */
export function describeMemory(chat: ChatHost): void {
  const { agent, colors, plan } = chat
  const home = plan.config.home
  // Files edited since the session loaded them are taken up now, for the next turn.
  refreshInstructions(agent, home, (problem) => chat.say(colors.yellow(safe(problem))))
  const sent = new Set(lastInstructions(agent.session)?.files ?? [])
  const files = discoverInstructionFiles(agent.cwd, home).filter((file) => sent.has(file.path))
  if (files.length === 0) chat.say(colors.dim('no instruction files loaded (AGENTS.md or CLAUDE.md)'))
  for (const file of files) {
    // A final newline ends the last line; it does not start another.
    const lines = file.text === '' ? 0 : file.text.replace(/\n$/, '').split('\n').length
    chat.say(
      `${file.scope.padEnd(8)} ${safe(file.path)}  ${colors.dim(`${lines} line${lines === 1 ? '' : 's'}`)}`,
    )
  }
  const user = join(home, 'AGENTS.md')
  if (!files.some((file) => file.path === user))
    chat.say(colors.dim(`user     ${safe(user)} (not created yet)`))
  const project = noteTarget('#', agent.cwd, home).path
  if (!files.some((file) => file.path === project))
    chat.say(colors.dim(`project  ${safe(project)} (not created yet)`))
  const editor = process.env.VISUAL || process.env.EDITOR || 'an editor'
  chat.say(
    colors.dim(
      `edit one with ${safe(editor)} <path>, then /memory reloads it · "# note" appends to the project's file, "#~ note" to yours`,
    ),
  )
}
