// The coding tools from the command line: `dsh run` shows edit diffs in its progress,
// permission flags restrict headless runs (asks become denials), and `dsh sessions rewind`
// restores the files a turn changed, refusing when one changed since.

import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, CLI, type CliWorld, runCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-code-')
const world = useModelWorlds(makeDir)

beforeAll(assertBuilt)

const write = (file_path: string, content: string) => ({ name: 'write', arguments: { file_path, content } })
const edit = (file_path: string, old_string: string, new_string: string) => ({
  name: 'edit',
  arguments: { file_path, old_string, new_string },
})

function toolResults(w: CliWorld, id: string): string[] {
  const file = readFileSync(runPath(w, id), 'utf8')
  return file
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((event) => event.type === 'tool/result')
    .map((event) => event.data.content)
}

function runPath(w: CliWorld, id: string): string {
  return execFileSync(process.execPath, [CLI, 'sessions', 'path', id], { env: w.env }).toString().trim()
}

describe('dsh run with the file tools', () => {
  it('shows diffs in progress, and sessions rewind restores the files of a turn', async () => {
    const w = await world([
      { toolCalls: [write('notes.txt', 'one\ntwo\n')] },
      { text: 'created' },
      {
        toolCalls: [{ name: 'read', arguments: { file_path: 'notes.txt' } }, edit('notes.txt', 'two', 'TWO')],
      },
      { text: 'edited' },
    ])
    const first = await runCli(['run', '--session-id', 'rw', 'create notes'], { env: w.env, cwd: w.project })
    expect(first.code).toBe(0)
    const second = await runCli(['run', '--session-id', 'rw', 'edit notes'], { env: w.env, cwd: w.project })
    expect(second.code).toBe(0)
    expect(second.stderr).toContain('● edit  notes.txt')
    expect(second.stderr).toMatch(/ {4}@@ -1,2 \+1,2 @@\n {4} one\n {4}-two\n {4}\+TWO/)
    expect(readFileSync(join(w.project, 'notes.txt'), 'utf8')).toBe('one\nTWO\n')

    const back = await runCli(['sessions', 'rewind', 'rw', '--to-turn', '2'], { env: w.env, cwd: w.project })
    expect(back.stdout).toContain('restored 1 file(s) to how they were before turn 2')
    expect(back.code).toBe(0)
    expect(readFileSync(join(w.project, 'notes.txt'), 'utf8')).toBe('one\ntwo\n')

    writeFileSync(join(w.project, 'notes.txt'), 'changed by hand\n')
    const refused = await runCli(['sessions', 'rewind', 'rw', '--to-turn', '1'], {
      env: w.env,
      cwd: w.project,
    })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('rewind refused')
    expect(refused.stderr).toContain('notes.txt: changed since dsh wrote it')
    expect(readFileSync(join(w.project, 'notes.txt'), 'utf8')).toBe('changed by hand\n')
    const bad = await runCli(['sessions', 'rewind', 'rw', '--to-turn', '9'], { env: w.env, cwd: w.project })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe('dsh: --to-turn 9: session rw has 2 turn(s)\n')
  })

  it.each([
    ['--permission-mode', 'plan', 'plan mode is on'],
    [
      '--permission-mode',
      'default',
      'needs approval in default mode (no allow rule covers it); this run cannot ask for approval',
    ],
    ['--disallowed-tools', 'Write', 'denied by the permission rule Write'],
    ['--disallowed-tools', 'Edit(*.txt)', 'denied by the permission rule Edit(*.txt)'],
  ])('%s %s denies a write headless and says so', async (flag, value, reason) => {
    const w = await world([{ toolCalls: [write('x.txt', 'x')] }, { text: 'ok' }])
    const run = await runCli(['run', flag, value, '--session-id', 'pm', 'write x'], {
      env: w.env,
      cwd: w.project,
    })
    expect(run.code).toBe(0)
    expect(toolResults(w, 'pm')[0]).toContain(reason)
    expect(() => readFileSync(join(w.project, 'x.txt'))).toThrow()
  })

  it('an allow rule lets default mode write; bypassPermissions warns; bad flags are one line', async () => {
    const w = await world([{ toolCalls: [write('x.txt', 'x')] }, { text: 'ok' }])
    const run = await runCli(
      ['run', '--permission-mode', 'default', '--allowed-tools', 'Edit(*.txt),Bash(npm test *)', 'write x'],
      { env: w.env, cwd: w.project },
    )
    expect(run.code).toBe(0)
    expect(readFileSync(join(w.project, 'x.txt'), 'utf8')).toBe('x')
    const bad = await runCli(['run', '--permission-mode', 'yolo', 'x'], { env: w.env, cwd: w.project })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe(
      'dsh: --permission-mode "yolo": expected one of auto, default, acceptEdits, plan, bypassPermissions\n',
    )
    const rule = await runCli(['run', '--allowed-tools', 'Bash(', 'x'], { env: w.env, cwd: w.project })
    expect(rule.code).toBe(2)
    expect(rule.stderr).toMatch(/^dsh: --allowed-tools: invalid permission rule/)
  })

  it('bypassPermissions prints a warning line and writes outside the project', async () => {
    const w = await world([{ toolCalls: [write('../outside.txt', 'o')] }, { text: 'ok' }])
    const run = await runCli(['run', '--permission-mode', 'bypassPermissions', 'x'], {
      env: w.env,
      cwd: w.project,
    })
    expect(run.stderr).toContain('dsh: warning: permission mode bypassPermissions')
    expect(readFileSync(join(w.project, '..', 'outside.txt'), 'utf8')).toBe('o')
  })
})
