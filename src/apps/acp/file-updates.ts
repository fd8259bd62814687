// ACP shapes of the file tools: `diff` content for write/edit/multi_edit calls (the protocol's
// diff type: path, oldText, newText) and `plan` updates for todo_write snapshots.

import { isAbsolute, resolve } from 'node:path'
import type { SessionUpdate, ToolCallContent, ToolKind } from '@agentclientprotocol/sdk'

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
