// ACP shapes of the file tools: diff content on edit tool calls, plan updates for todo_write.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { toolLocations } from '../../../src/apps/acp/file-updates.js'
import { outputUpdate, replayUpdates } from '../../../src/apps/acp/index.js'
import type { SessionEvent } from '../../../src/session/types.js'
import { useTempDirs } from '../../support/temp-dir.js'

const tempDir = useTempDirs('dsh-acp-loc-')

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

it('gives locations: multi_edit at its first edit, search tools their folder, a missing file the path alone', () => {
  const dir = tempDir()
  writeFileSync(join(dir, 'm.ts'), 'one\ntwo\nthree\n')
  const locations = (name: string, args: unknown) => toolLocations(name, args, dir)
  expect(
    locations('multi_edit', {
      file_path: 'm.ts',
      edits: [
        { old_string: 'two', new_string: '2' },
        { old_string: 'one', new_string: '1' },
      ],
    }),
  ).toEqual([{ path: join(dir, 'm.ts'), line: 2 }])
  expect(locations('edit', { file_path: 'gone.ts', old_string: 'x', new_string: 'y' })).toEqual([
    { path: join(dir, 'gone.ts') },
  ])
  expect(locations('read', { file_path: '/abs/a.ts' })).toEqual([{ path: '/abs/a.ts', line: 1 }])
  expect(locations('grep', { pattern: 'x' })).toEqual([{ path: dir }])
  expect(locations('ls', { path: 'sub' })).toEqual([{ path: join(dir, 'sub') }])
  expect(locations('bash', { command: 'ls' })).toEqual([])
})
