// `--sandbox`, `--sandbox-network` and `--no-sandbox-network` on the built CLI (run, chat,
// stdio, acp, web): a bad value is one line, a flag beats the config, a sandbox asked for
// without bwrap stops dsh at start (one line, no session, no request), and the flags really
// change what commands can do.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ScriptRequest, ScriptStep } from '../../../src/llm/index.js'
import { itRequires } from '../../support/requires.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, type CliResult, hasStack, type ModelWorld, runCli, useModelWorlds } from './cli.js'

const itWithBwrap = itRequires(existsSync('/usr/bin/bwrap'), 'bubblewrap (/usr/bin/bwrap)')
const makeDir = useTempDirs('dsh-cli-sandbox-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

/** Runs `command` in bash once, then answers with its output (so stdout carries it). */
function runThenEcho(command: () => string): ScriptStep[] {
  const last = (request: ScriptRequest) => request.messages.at(-1)!
  const step = (request: ScriptRequest) =>
    last(request).role === 'tool'
      ? { text: last(request).content ?? '' }
      : { toolCalls: [{ name: 'bash', arguments: { command: command() } }] }
  return [step, step]
}

const world = (script: ScriptStep[], config = '') => startWorld(script, { strict: true, config })

function expectOneLine(result: CliResult, pattern: RegExp, code: number): void {
  const lines = result.stderr.trimEnd().split('\n')
  expect(lines, result.stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/^dsh: /)
  expect(lines[0]).not.toMatch(/unexpected error/)
  expect(lines[0]).toMatch(pattern)
  expect(hasStack(result.stderr)).toBe(false)
  expect(result.stdout).toBe('')
  expect(result.code).toBe(code)
}

describe('--sandbox flags', () => {
  it('a bad --sandbox value is one usage line on run, chat, stdio, acp and web', async () => {
    const w = await world([{ text: 'never' }])
    const opts = { env: w.env, cwd: w.project }
    const expected = /^dsh: --sandbox "on": expected one of off, workspace-write, read-only$/
    expectOneLine(await runCli(['run', '--sandbox', 'on', 'hi'], opts), expected, 2)
    expectOneLine(await runCli(['chat', '--sandbox', 'on'], { ...opts, input: 'hi\n' }), expected, 2)
    expectOneLine(await runCli(['stdio', '--sandbox', 'on'], opts), expected, 2)
    expectOneLine(await runCli(['acp', '--sandbox', 'on'], opts), expected, 2)
    expectOneLine(await runCli(['web', '--port', '0', '--sandbox', 'on'], opts), expected, 2)
    expect(w.model.requests).toHaveLength(0)
  })

  it('a sandbox asked for with bwrap missing stops run, stdio, acp and web at start: one line, no session', async () => {
    const w = await world([{ text: 'never' }], 'sandboxBwrapPath: /nonexistent/bwrap\n')
    const opts = { env: w.env, cwd: w.project }
    const expected = /^dsh: sandbox: bubblewrap not found at \/nonexistent\/bwrap \(/
    expectOneLine(await runCli(['run', '--sandbox', 'workspace-write', 'hi'], opts), expected, 1)
    expectOneLine(await runCli(['stdio', '--sandbox', 'read-only'], opts), expected, 1)
    expectOneLine(await runCli(['acp', '--sandbox', 'workspace-write'], opts), expected, 1)
    expectOneLine(await runCli(['web', '--port', '0', '--sandbox', 'read-only'], opts), expected, 1)
    expect(existsSync(join(w.home, 'sessions'))).toBe(false)
    expect(w.model.requests).toHaveLength(0)
  })

  it('--sandbox off beats a sandbox in the config', async () => {
    const w = await world(
      runThenEcho(() => 'echo unsandboxed'),
      'sandbox: workspace-write\nsandboxBwrapPath: /nonexistent/bwrap\n',
    )
    const opts = { env: w.env, cwd: w.project }
    expectOneLine(await runCli(['run', 'hi'], opts), /bubblewrap not found/, 1)
    const result = await runCli(['run', '--sandbox', 'off', 'hi'], opts)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('unsandboxed')
  })

  itWithBwrap('--sandbox read-only keeps a command from writing the project', async () => {
    const w = await world(runThenEcho(() => 'echo x > made.txt; echo "exit=$?"'))
    const result = await runCli(['run', '--sandbox', 'read-only', 'hi'], { env: w.env, cwd: w.project })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/exit=[1-9]/)
    expect(existsSync(join(w.project, 'made.txt'))).toBe(false)
  })

  itWithBwrap(
    '--no-sandbox-network cuts the network; --sandbox-network beats sandboxNetwork: false',
    async () => {
      let current: ModelWorld | undefined
      const port = () => new URL(current!.model.baseUrl).port
      const connect = () =>
        `(exec 3<>/dev/tcp/127.0.0.1/${port()}) 2>/dev/null && echo connected || echo refused`
      const off = await world(runThenEcho(connect))
      current = off
      const cut = await runCli(['run', '--sandbox', 'workspace-write', '--no-sandbox-network', 'hi'], {
        env: off.env,
        cwd: off.project,
      })
      expect(cut.code, cut.stderr).toBe(0)
      expect(cut.stdout).toContain('refused')
      await off.model.close()

      const on = await world(runThenEcho(connect), 'sandbox: workspace-write\nsandboxNetwork: false\n')
      current = on
      const open = await runCli(['run', '--sandbox-network', 'hi'], { env: on.env, cwd: on.project })
      expect(open.code, open.stderr).toBe(0)
      expect(open.stdout).toContain('connected')
    },
  )
})
