// Agent loop overhead: one 50-step turn (each step one no-op tool call) through the
// whole harness against the same streamed requests made by a bare HTTP client, both
// served by the loopback model in this run. With the memory backend the ratio is the
// loop's own overhead; with JSONL the baseline also makes a raw write+fsync at each of
// the harness's durability checkpoints: before every request, before every tool body,
// and at the turn's end (2 × 50 + 2).

import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { resolveConfig, validateConfig } from '../src/config/index.js'
import { createHarness } from '../src/harness/index.js'
import { type Script, startLoopbackModel } from '../src/llm/index.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const STEPS = 50
const ROUNDS = 9

function script(): Script {
  const steps: Script[number][] = []
  // Each step a different call: a turn of identical calls with identical results is ended by
  // the repeat guard (reason `repeated`), as a model stuck in one call should be.
  for (let i = 0; i < STEPS; i++) steps.push({ toolCalls: [{ name: 'noop', arguments: { step: i } }] })
  steps.push({ text: 'done' })
  return steps
}

/**
 * Replays `bodies` (the requests a harness turn made) with fetch, serializing each one as
 * any client must and reading each stream to its end.
 */
async function bareClient(bodies: readonly object[], durable: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-raw-'))
  const fd = openSync(join(dir, 'raw.jsonl'), 'a')
  const line = Buffer.from(
    `${JSON.stringify({ seq: 0, type: 'tool/result', time: Date.now(), data: { callId: 'call_1', content: 'ok' } })}\n`,
  )
  const durableWrite = () => {
    writeSync(fd, line)
    fsyncSync(fd)
  }
  const model = await startLoopbackModel(script())
  const started = performance.now()
  for (const [i, body] of bodies.entries()) {
    if (durable) durableWrite()
    const response = await fetch(`${model.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
      body: JSON.stringify(body),
    })
    await response.text()
    // The tool body's checkpoint: every reply but the last calls a tool.
    if (durable && i < bodies.length - 1) durableWrite()
  }
  if (durable) durableWrite()
  const elapsed = performance.now() - started
  await model.close()
  closeSync(fd)
  rmSync(dir, { recursive: true, force: true })
  return elapsed
}

/** Runs one turn; returns its wall time and the request bodies the model received. */
async function harnessTurn(backend: 'memory' | 'jsonl'): Promise<{ elapsed: number; bodies: object[] }> {
  const home = mkdtempSync(join(tmpdir(), 'dsh-bench-agent-'))
  const model = await startLoopbackModel(script())
  const harness = await createHarness({
    config: resolveConfig(validateConfig('bench', { dshHome: home, persistence: { backend } }), {}),
    model: { baseUrl: model.baseUrl, apiKey: 'bench' },
  })
  harness.ctx.get('tools')!.register({
    name: 'noop',
    description: 'no-op',
    parameters: z.object({ step: z.number() }),
    execute: async ({ step }) => ({ content: `ok ${step}` }),
  })
  const agent = await harness.agents.create({ sessionId: `bench-${Date.now()}`, meta: { cwd: home } })
  const started = performance.now()
  const result = await agent.prompt('go')
  const elapsed = performance.now() - started
  if (result.reason !== 'completed') throw new Error(`bench turn ended ${result.reason}: ${result.error}`)
  await harness.dispose()
  await model.close()
  rmSync(home, { recursive: true, force: true })
  return { elapsed, bodies: model.requests }
}

export default async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  const cases = [
    { backend: 'memory' as const, durable: false, label: 'memory backend vs bare HTTP' },
    {
      backend: 'jsonl' as const,
      durable: true,
      label: `JSONL backend vs bare HTTP + ${2 * STEPS + 2} raw fsyncs`,
    },
  ]
  for (const { backend, durable, label } of cases) {
    const { bodies } = await harnessTurn(backend)
    await bareClient(bodies, durable)
    const bare: number[] = []
    const full: number[] = []
    for (let i = 0; i < ROUNDS; i++) {
      bare.push(await bareClient(bodies, durable))
      full.push((await harnessTurn(backend)).elapsed)
    }
    const ratio = median(full) / median(bare)
    rows.push({
      name: `agent: ${STEPS}-step turn, ${label} (same request bodies)`,
      measured: `${median(full).toFixed(1)} ms`,
      baseline: `${median(bare).toFixed(1)} ms`,
      ratio,
      target: '≤ 1.3×',
      pass: ratio <= 1.3,
    })
  }
  return rows
}
