// DeepSeek's error classes as a `dsh run` user meets them, through the built CLI against
// the strict stand-in: the exit code, the one line on stderr (no stack), the retry notice
// on stderr, the `length` warning, and a session that `--resume` continues afterwards.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Script } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, type CliWorld, hasStack, type ModelWorld, runCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-failures-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

async function world(script: Script): Promise<ModelWorld> {
  const w = await startWorld(script, { strict: true })
  writeFileSync(join(w.home, 'config.yaml'), `model:\n  baseUrl: ${w.model.baseUrl}\n  maxRetries: 2\n`)
  return w
}

/** Runs `dsh run --session-id <id> <prompt>` in the world's project. */
function run(w: CliWorld, id: string, prompt: string, extra: string[] = []) {
  return runCli(['run', '--session-id', id, ...extra, prompt], { env: w.env, cwd: w.project })
}

describe('dsh run and the model error classes', () => {
  it.each([
    ['auth', 'check that DEEPSEEK_API_KEY holds a valid key'],
    ['balance', 'top up the balance'],
    ['overflow', 'compact it (/compact, or dsh sessions compact <id>)'],
    ['invalid', 'invalid request (HTTP 422: Invalid Parameters)'],
  ] as const)(
    '%s: exit 1 at once with one line saying what to do; the session resumes',
    async (fault, advice) => {
      const w = await world([{ fault }, { text: 'Back again.' }])
      const failed = await run(w, `fail-${fault}`, 'hello')
      expect(failed.code).toBe(1)
      expect(failed.stdout).toBe('')
      expect(w.model.requests).toHaveLength(1)
      expect(failed.stderr).not.toContain('retrying')
      expect(hasStack(failed.stderr)).toBe(false)
      const errorLines = failed.stderr.split('\n').filter((line) => line.includes('model request failed'))
      expect(errorLines).toHaveLength(1)
      expect(errorLines[0]).toContain(advice)
      const resumed = await runCli(['run', '--resume', `fail-${fault}`, 'again'], {
        env: w.env,
        cwd: w.project,
      })
      expect(resumed.code).toBe(0)
      expect(resumed.stdout).toBe('Back again.\n')
    },
  )

  it('rate limit and overload: retried with a notice on stderr, then exit 0', async () => {
    const w = await world([
      { fault: 'rate-limit', retryAfter: 0 },
      { fault: 'overloaded', retryAfter: 0 },
      { text: 'Made it.' },
    ])
    const result = await run(w, 'retried', 'hello')
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('Made it.\n')
    expect(w.model.requests).toHaveLength(3)
    expect(result.stderr).toMatch(/retrying in [\d.]+ s \(2\/3\): rate limit reached/)
    expect(result.stderr).toMatch(/retrying in [\d.]+ s \(3\/3\): server overloaded/)
  })

  it('gives up after the retries: exit 1 with the attempts counted', async () => {
    const w = await world([
      { fault: 'server', retryAfter: 0 },
      { fault: 'server', retryAfter: 0 },
      { fault: 'server', retryAfter: 0 },
    ])
    const result = await run(w, 'gave-up', 'hello')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('model request failed after 3 attempts: server error (HTTP 500')
    expect(hasStack(result.stderr)).toBe(false)
  })

  it('an answer cut at the output limit ends the turn as length: a warning and exit 1', async () => {
    const w = await world([
      { text: 'half an ans', finishReason: 'length' },
      { text: 'half again', finishReason: 'length' },
      { text: 'Whole answer.' },
    ])
    const cut = await run(w, 'cut', 'hello')
    expect(cut.code).toBe(1)
    expect(cut.stderr).toContain('cut at the output limit')
    expect(cut.stderr).toContain('turn ended: length')
    expect(hasStack(cut.stderr)).toBe(false)
    const json = await run(w, 'cut', 'hello', ['--json'])
    expect(json.code).toBe(1)
    const result = JSON.parse(json.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>
    expect(result).toMatchObject({ type: 'result', reason: 'length' })
    expect(result.error).toContain('cut at the output limit')
    const next = await run(w, 'cut', 'go on')
    expect(next.code).toBe(0)
    expect(next.stdout).toBe('Whole answer.\n')
  })

  it('sends max_tokens 131072 by default, so ordinary answers are not cut at the API’s own default', async () => {
    const w = await world([{ text: 'Fine.' }])
    expect((await run(w, 'max-tokens', 'hello')).code).toBe(0)
    expect(w.model.requests[0]!.max_tokens).toBe(131_072)
  })

  it('a malformed base URL is one line before anything is created; an unreachable one names the URL', async () => {
    const w = await world([])
    writeFileSync(join(w.home, 'config.yaml'), 'model:\n  maxRetries: 0\n')
    for (const url of ['ftp://example.com', 'not a url']) {
      const bad = await runCli(['run', 'hi'], { env: { ...w.env, DEEPSEEK_BASE_URL: url }, cwd: w.project })
      expect(bad.code).toBe(1)
      expect(bad.stderr).toBe(
        `dsh: DEEPSEEK_BASE_URL: ${JSON.stringify(url)} is not a usable model server URL (expected http:// or https://, e.g. https://api.deepseek.com)\n`,
      )
    }
    writeFileSync(join(w.home, 'config.yaml'), 'model:\n  baseUrl: http://127.0.0.1:9\n  maxRetries: 0\n')
    const down = await run(w, 'unreachable', 'hello')
    expect(down.code).toBe(1)
    expect(down.stderr).toMatch(
      /model request failed: connection failed .* could not reach http:\/\/127\.0\.0\.1:9/,
    )
    expect(hasStack(down.stderr)).toBe(false)
  })
})
