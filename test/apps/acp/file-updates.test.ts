// ACP shapes of the file tools: diff content on edit tool calls, plan updates for todo_write.

import { expect, it } from 'vitest'
import { outputUpdate, replayUpdates } from '../../../src/apps/acp/index.js'
import type { SessionEvent } from '../../../src/session/types.js'

it('sends diff content for write, edit and multi_edit, with paths made absolute', () => {
  const start = (name: string, args: unknown) =>
    outputUpdate(1, { type: 'tool-start', callId: 'c', name, arguments: JSON.stringify(args) }, '/proj')
  expect(start('edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' })).toMatchObject({
    sessionUpdate: 'tool_call',
    kind: 'edit',
    content: [{ type: 'diff', path: '/proj/a.ts', oldText: 'x', newText: 'y' }],
  })
  expect(start('write', { file_path: '/abs/new.txt', content: 'hi' })).toMatchObject({
    content: [{ type: 'diff', path: '/abs/new.txt', oldText: null, newText: 'hi' }],
  })
  const multi = start('multi_edit', {
    file_path: 'm.ts',
    edits: [
      { old_string: 'a', new_string: 'b' },
      { old_string: 'c', new_string: 'd' },
    ],
  }) as { content: unknown[] }
  expect(multi.content).toHaveLength(2)
  expect(start('read', { file_path: 'a.ts' })).toMatchObject({ kind: 'read' })
  expect(start('read', { file_path: 'a.ts' })).not.toHaveProperty('content')
})

it('replays a todo_write call as a plan update', () => {
  const todos = [
    { content: 'Read', status: 'completed' },
    { content: 'Fix', status: 'in_progress' },
    { content: 'Test', status: 'pending' },
  ]
  const events: SessionEvent[] = [
    { seq: 0, type: 'turn/start', time: 1, data: { turn: 1 } },
    {
      seq: 1,
      type: 'tool/call',
      time: 1,
      data: { callId: 'c', name: 'todo_write', arguments: JSON.stringify({ todos }) },
    },
  ]
  expect(replayUpdates(events, '/proj')[1]).toEqual({
    sessionUpdate: 'plan',
    entries: [
      { content: 'Read', priority: 'medium', status: 'completed' },
      { content: 'Fix', priority: 'medium', status: 'in_progress' },
      { content: 'Test', priority: 'medium', status: 'pending' },
    ],
  })
})
