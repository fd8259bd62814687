// Every error a user can cause prints one clear line, no stack trace, and a non-zero exit.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, type CliResult, cliEnv, hasStack, runCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-errors-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

const world = () => startWorld([{ text: 'should not be reached' }], { strict: true })

/** Exactly one `dsh: ...` line on stderr matching `pattern`, nothing on stdout, no stack. */
function expectOneLine(result: CliResult, pattern: RegExp, code?: number): void {
  const lines = result.stderr.trimEnd().split('\n')
  expect(lines, result.stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/^dsh: /)
  expect(lines[0]).toMatch(pattern)
  expect(hasStack(result.stderr)).toBe(false)
  expect(result.stdout).toBe('')
  if (code !== undefined) expect(result.code).toBe(code)
  else expect(result.code).not.toBe(0)
}

describe('user-caused errors', () => {
  it('no API key: names the variable, creates no session, sends no request', async () => {
    const w = await world()
    const env = { ...w.env }
    delete env.DEEPSEEK_API_KEY
    // A remote server needs a key (a loopback one does not: local-model.test.ts).
    writeFileSync(join(w.home, 'config.yaml'), 'model:\n  baseUrl: http://model.invalid:9\n')
    const result = await runCli(['run', 'hello'], { env, cwd: w.project })
    expectOneLine(result, /DEEPSEEK_API_KEY/, 1)
    expect(existsSync(join(w.home, 'sessions'))).toBe(false)
    expect(w.model.requests).toHaveLength(0)
  })

  it('no API key under a configured variable name', async () => {
    const w = await world()
    writeFileSync(
      join(w.home, 'config.yaml'),
      'model:\n  baseUrl: http://model.invalid:9\n  apiKeyEnv: MY_MODEL_KEY\n',
    )
    expectOneLine(await runCli(['run', 'hello'], { env: w.env, cwd: w.project }), /MY_MODEL_KEY/, 1)
  })

  it('unknown session id, for every command that takes one', async () => {
    const w = await world()
    const opts = { env: w.env, cwd: w.project }
    // A value naming nothing is a usage error (exit 2); nothing to continue is not.
    expectOneLine(await runCli(['run', '--resume', 'nope', 'hi'], opts), /unknown session "nope"/, 2)
    expectOneLine(await runCli(['run', '--fork', 'nope', 'hi'], opts), /unknown session "nope"/, 2)
    expectOneLine(await runCli(['sessions', 'show', 'nope'], opts), /unknown session "nope"/, 2)
    expectOneLine(await runCli(['sessions', 'path', 'nope'], opts), /unknown session "nope"/, 2)
    expectOneLine(
      await runCli(['run', '--continue', 'hi'], opts),
      /no session with a prompt to continue in /,
      1,
    )
    expect(w.model.requests).toHaveLength(0)
  })

  it('malformed config: YAML syntax, an invalid field, a missing --config file', async () => {
    const w = await world()
    const config = join(w.home, 'config.yaml')
    writeFileSync(config, 'model: [unclosed\n')
    const syntax = await runCli(['run', 'hi'], { env: w.env, cwd: w.project })
    expectOneLine(syntax, new RegExp(`${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*invalid YAML`), 1)

    writeFileSync(config, 'model:\n  maxRetries: lots\n')
    expectOneLine(
      await runCli(['sessions', 'list'], { env: w.env, cwd: w.project }),
      /config\.yaml: model\.maxRetries: /,
    )

    writeFileSync(config, 'persistence:\n  backend: floppy\n')
    expectOneLine(await runCli(['env'], { env: w.env, cwd: w.project }), /persistence\.backend/)

    const missing = join(w.home, 'missing.yaml')
    expectOneLine(
      await runCli(['run', '--config', missing, 'hi'], { env: w.env, cwd: w.project }),
      /cannot read config .*missing\.yaml: no such file/,
    )
  })

  it('unknown flags, unknown commands and missing arguments exit 2', async () => {
    const env = cliEnv()
    expectOneLine(await runCli(['run', '--bogus', 'hi'], { env }), /unknown option '--bogus'/, 2)
    expectOneLine(await runCli(['frobnicate'], { env }), /unknown command 'frobnicate'/, 2)
    expectOneLine(await runCli(['run'], { env }), /missing required argument 'prompt'/, 2)
    expectOneLine(
      await runCli(['run', '--resume', 'a', '--fork', 'b', 'hi'], { env }),
      /cannot be combined/,
      2,
    )
  })

  it('an unusable --cwd', async () => {
    const w = await world()
    const opts = { env: w.env, cwd: w.project }
    const missing = join(w.project, 'missing')
    expectOneLine(await runCli(['run', '--cwd', missing, 'hi'], opts), /--cwd .*missing: no such folder/, 2)
    const file = join(w.project, 'a-file')
    writeFileSync(file, 'x')
    expectOneLine(await runCli(['run', '--cwd', file, 'hi'], opts), /--cwd .*a-file: not a folder/, 2)
    expectOneLine(await runCli(['sessions', 'list', '--cwd', missing], opts), /no such folder/, 2)
    expect(w.model.requests).toHaveLength(0)
  })

  it('a session log with a damaged header is not listed silently: a warning names the file', async () => {
    const w = await world()
    const bucket = join(w.home, 'sessions', '_no-cwd')
    mkdirSync(bucket, { recursive: true })
    const turnStart = '{"seq":0,"type":"turn/start","time":1700000000001,"data":{"turn":1}}'
    writeFileSync(
      join(bucket, 'good.jsonl'),
      `{"type":"session","version":1,"id":"good","createdAt":1700000000000,"delegationDepth":0}\n${turnStart}\n`,
    )
    const damaged = join(bucket, 'broken.jsonl')
    writeFileSync(damaged, `{"type":"session", torn\n${turnStart}\n`)
    const result = await runCli(['sessions', 'list', '--all'], { env: w.env, cwd: w.project })
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^good /m)
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(`dsh: warning: jsonl: ${damaged} is damaged and not listed:`)
    expect(hasStack(result.stderr)).toBe(false)
  })

  it.skipIf(process.getuid?.() === 0)(
    'an unreadable --cwd (skipped as root: root reads every folder)',
    async () => {
      const w = await world()
      const locked = join(w.project, 'locked')
      mkdirSync(locked, { mode: 0o000 })
      const result = await runCli(['run', '--cwd', locked, 'hi'], { env: w.env, cwd: w.project })
      expectOneLine(result, /--cwd .*locked: permission denied/, 1)
    },
  )
})
