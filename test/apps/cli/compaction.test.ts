// Compaction through the built CLI against the strict stand-in with a small window: one
// headless turn whose bash outputs are three times the window, then --continue, --resume
// and --fork; `--json` context fields; `sessions show/export` marking the boundary; and
// `dsh sessions compact`.

import { beforeAll, describe, expect, it } from 'vitest'
import {
  promptText,
  type ReceivedRequest,
  type ScriptRequest,
  type ScriptStep,
} from '../../../src/llm/index.js'
import { isSummaryRequest, turnPrompt, workScript } from '../../support/compaction-script.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, hasStack, jsonLines, runCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-compaction-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

const WINDOW = 16_000
const BOUNDARY_LINE = /context compacted: [\d.]+k? → [\d.]+k? tokens/

/** The strict stand-in's count: four characters of request JSON a token. */
function promptTokens(request: ReceivedRequest): number {
  return Math.ceil(promptText(request).length / 4)
}

function resultLine(stdout: string): Record<string, unknown> {
  return jsonLines(stdout).find((line) => line.type === 'result')!
}

describe('compaction in the CLI', () => {
  it('completes a turn of 24 bash calls three times the window; --continue, --resume and --fork go on', async () => {
    const big = workScript({ calls: 24, lines: 260 })
    const small = workScript({ calls: 2, lines: 260 })
    // The first prompt runs the 24 calls; later prompts two each (their history is the big one).
    const play = (request: ScriptRequest) => {
      const step = (turnPrompt(request) === 'work one' ? big : small).script[0]!
      return typeof step === 'function' ? step(request) : step
    }
    const script: ScriptStep[] = Array.from({ length: 200 }, () => play)
    const w = await startWorld(script, {
      strict: { contextWindow: WINDOW },
      config: `  contextWindow: ${WINDOW}\n`,
    })
    const timeoutMs = 180_000
    const first = await runCli(['run', '--session-id', 'long-turn', 'work one'], {
      env: w.env,
      cwd: w.project,
      timeoutMs,
    })
    expect(first.stderr).not.toContain('turn ended')
    expect(first.code).toBe(0)
    expect(first.stdout).toBe('finished: work one\n')
    // Progress on stderr shows the automatic compaction.
    expect(first.stderr).toContain('compacting context…')
    expect(first.stderr).toMatch(BOUNDARY_LINE)

    const runs = [
      ['run', '--json', '--continue', 'work two'],
      ['run', '--json', '--resume', 'long-turn', 'work three'],
      ['run', '--json', '--fork', 'long-turn', 'work four'],
    ]
    for (const args of runs) {
      const run = await runCli(args, { env: w.env, cwd: w.project, timeoutMs })
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      const result = resultLine(run.stdout)
      expect(result).toMatchObject({ reason: 'completed', contextWindow: WINDOW })
      expect(result.contextTokens).toBeGreaterThan(0)
      expect(result.contextTokens).toBeLessThan(WINDOW)
    }
    // The stand-in refuses any request over the window; none was, and it counted them all.
    for (const request of w.model.requests)
      expect(promptTokens(request) + (request.max_tokens ?? 0)).toBeLessThanOrEqual(WINDOW)
    expect(big.summaryRequests.length + small.summaryRequests.length).toBeGreaterThan(0)

    // The whole history, with the boundary marked, in every view of the log.
    const show = await runCli(['sessions', 'show', 'long-turn'], { env: w.env, cwd: w.project })
    expect(show.stdout).toMatch(BOUNDARY_LINE)
    expect(show.stdout).toContain('call 01 line 00001')
    expect(show.stdout).toContain('finished: work one')
    const markdown = await runCli(['sessions', 'export', '--format', 'markdown', 'long-turn'], {
      env: w.env,
      cwd: w.project,
    })
    expect(markdown.stdout).toMatch(BOUNDARY_LINE)
    const claude = jsonLines(
      (await runCli(['sessions', 'export', 'long-turn'], { env: w.env, cwd: w.project })).stdout,
    )
    const boundaries = claude.filter((line) => line.type === 'system')
    expect(boundaries.length).toBeGreaterThan(0)
    for (const line of boundaries) {
      expect(['compact_boundary', 'microcompact_boundary']).toContain(line.subtype)
      expect(line.content).toMatch(BOUNDARY_LINE)
    }
    const summaries = claude.filter((line) => line.subtype === 'compact_boundary')
    for (const line of summaries) {
      expect(line).toMatchObject({ parentUuid: null, compactMetadata: { trigger: 'auto' } })
      const next = claude[claude.indexOf(line) + 1]!
      expect(next).toMatchObject({ type: 'user', isCompactSummary: true, parentUuid: line.uuid })
    }
  }, 400_000)
})

describe('dsh sessions compact', () => {
  const answer = (request: ScriptRequest) =>
    isSummaryRequest(request)
      ? { reasoning: 'Summing up.', text: '1. Task: say hello\n6. Next steps: none' }
      : { reasoning: 'Easy.', text: `answer to ${turnPrompt(request)}` }

  it('compacts a stored session with the given instructions and prints one line', async () => {
    const w = await startWorld([answer, answer, answer, answer], { strict: true })
    for (const prompt of ['first', 'second']) {
      const run = await runCli(['run', '--session-id', 'stored', prompt], { env: w.env, cwd: w.project })
      expect(run.code).toBe(0)
    }
    const compact = await runCli(['sessions', 'compact', 'stored', '--instructions', 'focus on the tests'], {
      env: w.env,
      cwd: w.project,
    })
    expect(compact.stderr).toBe('')
    expect(compact.code).toBe(0)
    expect(compact.stdout).toMatch(new RegExp(`^${BOUNDARY_LINE.source}\n$`))
    const summary = w.model.requests.at(-1)!
    const last = summary.messages.at(-1)!
    expect(last.role).toBe('user')
    expect(String(last.content)).toContain('focus on the tests')

    const log = jsonLines(
      (await runCli(['sessions', 'show', '--json', 'stored'], { env: w.env, cwd: w.project })).stdout,
    )
    const boundary = log.find((line) => line.type === 'context/compacted')
    expect(boundary?.data).toMatchObject({
      trigger: 'manual',
      instructions: 'focus on the tests',
      summary: '1. Task: say hello\n6. Next steps: none',
    })
    // The next turn starts from the summary.
    const next = await runCli(['run', '--continue', 'third'], { env: w.env, cwd: w.project })
    expect(next.code).toBe(0)
    expect(JSON.stringify(w.model.requests.at(-1)!.messages)).toContain('1. Task: say hello')
    const show = await runCli(['sessions', 'show', 'stored'], { env: w.env, cwd: w.project })
    expect(show.stdout).toMatch(BOUNDARY_LINE)
    expect(show.stdout).toContain('│ 1. Task: say hello')
    expect(show.stdout).toContain('answer to first')
  })

  it('an unknown id (exit 2, it names nothing) and a failed summary call (exit 1) are one line each, and the log is unchanged', async () => {
    const w = await startWorld([answer, { status: 500, message: 'upstream broke' }], { strict: true })
    const unknown = await runCli(['sessions', 'compact', 'nope'], { env: w.env, cwd: w.project })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^dsh: .*nope.*\n$/)
    expect(hasStack(unknown.stderr)).toBe(false)

    expect((await runCli(['run', '--session-id', 's', 'hi'], { env: w.env, cwd: w.project })).code).toBe(0)
    const before = (await runCli(['sessions', 'show', '--json', 's'], { env: w.env, cwd: w.project })).stdout
    const failed = await runCli(['sessions', 'compact', 's'], { env: w.env, cwd: w.project })
    expect(failed.code).toBe(1)
    expect(failed.stderr).toMatch(/^dsh: compaction failed: .*\(the session is unchanged\)\n$/)
    expect(hasStack(failed.stderr)).toBe(false)
    const after = (await runCli(['sessions', 'show', '--json', 's'], { env: w.env, cwd: w.project })).stdout
    expect(after).toBe(before)
  })
})
