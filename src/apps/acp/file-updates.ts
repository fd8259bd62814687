// ACP shapes of the file tools: `diff` content for write/edit/multi_edit calls (the protocol's
// diff type: path, oldText, newText) and `plan` updates for todo_write snapshots.

import { readFileSync, statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import type { SessionUpdate, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk'

/** Files larger than this are not read to find an edit's line (the location keeps the path). */
const LINE_LOOKUP_MAX_BYTES = 2 * 1024 * 1024

/** ACP tool kinds of the file tools; undefined for other tools. */
export function fileToolKind(name: string): ToolKind | undefined {
  switch (name) {
    case 'read':
    case 'ls':
      return 'read'
    case 'write':
    case 'edit':
    case 'multi_edit':
      return 'edit'
    case 'glob':
    case 'grep':
      return 'search'
    case 'todo_write':
    case 'skill':
      return 'think'
    default:
      return undefined
  }
}

/**
 * Diff content for an edit tool call, from its arguments: `write` is a new text (oldText null
 * when nothing is known of the old one), `edit` and each `multi_edit` edit the replaced text.
 */
export function diffContent(name: string, input: unknown, cwd: string | undefined): ToolCallContent[] {
  if (typeof input !== 'object' || input === null) return []
  const args = input as Record<string, unknown>
  if (typeof args.file_path !== 'string') return []
  const path = isAbsolute(args.file_path) || cwd === undefined ? args.file_path : resolve(cwd, args.file_path)
  const diff = (oldText: unknown, newText: unknown): ToolCallContent[] =>
    typeof newText === 'string'
      ? [
          {
            type: 'diff',
            path,
            oldText: typeof oldText === 'string' && oldText !== '' ? oldText : null,
            newText,
          },
        ]
      : []
  switch (name) {
    case 'write':
      return diff(null, args.content)
    case 'edit':
      return diff(args.old_string, args.new_string)
    case 'multi_edit':
      return Array.isArray(args.edits)
        ? args.edits.flatMap((edit) =>
            typeof edit === 'object' && edit !== null
              ? diff(
                  (edit as Record<string, unknown>).old_string,
                  (edit as Record<string, unknown>).new_string,
                )
              : [],
          )
        : []
    default:
      return []
  }
}

/**
 * The files a tool call touches, as ACP `locations` (absolute path, 1-based line when
 * known) so an editor can follow along: `read` at its offset, `edit`/`multi_edit` at the
 * first line of the replaced text (looked up in the file as it is before the call), `write`
 * at line 1, and the folder or file `ls`, `glob` and `grep` search. Empty for other tools.
 */
export function toolLocations(name: string, input: unknown, cwd: string | undefined): ToolCallLocation[] {
  if (typeof input !== 'object' || input === null) return []
  const args = input as Record<string, unknown>
  const absolute = (path: unknown): string | undefined =>
    typeof path !== 'string' || path === ''
      ? undefined
      : isAbsolute(path) || cwd === undefined
        ? path
        : resolve(cwd, path)
  switch (name) {
    case 'read': {
      const path = absolute(args.file_path)
      if (!path) return []
      const line = typeof args.offset === 'number' && args.offset > 0 ? args.offset : 1
      return [{ path, line }]
    }
    case 'write': {
      const path = absolute(args.file_path)
      return path ? [{ path, line: 1 }] : []
    }
    case 'edit':
    case 'multi_edit': {
      const path = absolute(args.file_path)
      if (!path) return []
      const first = name === 'edit' ? args.old_string : firstEdit(args.edits)
      const line = typeof first === 'string' ? lineOf(path, first) : undefined
      return [line !== undefined ? { path, line } : { path }]
    }
    case 'ls':
    case 'glob':
    case 'grep': {
      const path = absolute(args.path) ?? cwd
      return path ? [{ path }] : []
    }
    default:
      return []
  }
}

function firstEdit(edits: unknown): unknown {
  if (!Array.isArray(edits)) return undefined
  const edit = edits[0]
  return typeof edit === 'object' && edit !== null ? (edit as Record<string, unknown>).old_string : undefined
}

/** The 1-based line where `text` first starts in the file; undefined when unknown. */
function lineOf(path: string, text: string): number | undefined {
  if (text === '') return undefined
  try {
    if (statSync(path).size > LINE_LOOKUP_MAX_BYTES) return undefined
    const content = readFileSync(path, 'utf8')
    const at = content.indexOf(text)
    if (at < 0) return undefined
    let line = 1
    for (let i = content.indexOf('\n'); i >= 0 && i < at; i = content.indexOf('\n', i + 1)) line++
    return line
  } catch {
    // A file that does not exist (yet) or cannot be read: the path alone is still useful.
    return undefined
  }
}

/** The ACP plan for a todo_write call's list (ACP has no in-progress wording of its own). */
export function planUpdate(name: string, input: unknown): SessionUpdate | undefined {
  if (name !== 'todo_write' || typeof input !== 'object' || input === null) return undefined
  const todos = (input as { todos?: unknown }).todos
  if (!Array.isArray(todos)) return undefined
  return {
    sessionUpdate: 'plan',
    entries: todos
      .filter((todo): todo is { content: string; status: string } => typeof todo?.content === 'string')
      .map((todo) => ({
        content: todo.content,
        priority: 'medium' as const,
        status:
          todo.status === 'completed'
            ? 'completed'
            : todo.status === 'in_progress'
              ? 'in_progress'
              : 'pending',
      })),
  }
}
