// Hook overhead: one turn of 20 bash calls with 3 PreToolUse and 2 PostToolUse command
// hooks, against the same turn without hooks; the difference per tool call is compared
// with spawning those hook processes directly (bash -c, the payload on stdin, three at
// once then two at once, as the bridge runs them) in the same run.

import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveConfig, validateConfig } from '../src/config/index.js'
import { createHarness } from '../src/harness/index.js'
import { type Script, startLoopbackModel } from '../src/llm/index.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const CALLS = 20
const ROUNDS = 7
const TARGET_RATIO = 1.5
/** What each hook runs: read the payload, as every real hook does, and allow. */
const HOOK_COMMAND = 'cat > /dev/null'

function script(): Script {
  const steps: Script[number][] = []
  for (let i = 0; i < CALLS; i++)
    steps.push({ toolCalls: [{ name: 'bash', arguments: { command: 'true' } }] })
  steps.push({ text: 'done' })
  return steps
}

function hookSettings(): object {
  // Distinct commands (identical handlers would run once).
  const hooks = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => ({ type: 'command', command: `${HOOK_COMMAND} # ${tag}${i}` }))
  return {
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: hooks(3, 'pre') }],
      PostToolUse: [{ matcher: 'Bash', hooks: hooks(2, 'post') }],
    },
  }
}

/** One turn through the whole harness (memory backend); answers its wall time in ms. */
async function turn(withHooks: boolean): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), 'dsh-bench-hooks-'))
  const cwd = join(home, 'work')
  mkdirSync(cwd)
  const settings = join(home, 'hooks.json')
  writeFileSync(settings, JSON.stringify(hookSettings()))
  const model = await startLoopbackModel(script())
  const harness = await createHarness({
    config: resolveConfig(
      validateConfig('bench', {
        dshHome: home,
        persistence: { backend: 'memory' },
        hooks: { claudeCode: withHooks ? [settings] : [], projectFiles: false },
      }),
      {},
    ),
    model: { baseUrl: model.baseUrl, apiKey: 'bench' },
  })
  try {
    const agent = await harness.agents.create({ sessionId: `bench-${Date.now()}`, meta: { cwd } })
    const started = performance.now()
    const result = await agent.prompt('go')
    const elapsed = performance.now() - started
    if (result.reason !== 'completed') throw new Error(`bench turn ended ${result.reason}: ${result.error}`)
    return elapsed
  } finally {
    await harness.dispose()
    await model.close()
    rmSync(home, { recursive: true, force: true })
  }
}

function spawnHook(payload: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', HOOK_COMMAND], { stdio: ['pipe', 'pipe', 'pipe'] })
    child.stdout.resume()
    child.stderr.resume()
    child.on('error', reject)
    child.on('close', () => resolve())
    child.stdin.end(payload)
  })
}

/** The hook processes alone: per call, three at once, then two at once. Answers ms for all calls. */
async function directSpawns(): Promise<number> {
  const payload = JSON.stringify({
    session_id: 'bench',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'true' },
  })
  const started = performance.now()
  for (let i = 0; i < CALLS; i++) {
    await Promise.all([spawnHook(payload), spawnHook(payload), spawnHook(payload)])
    await Promise.all([spawnHook(payload), spawnHook(payload)])
  }
  return performance.now() - started
}

export default async function run(): Promise<BenchRow[]> {
  await turn(false) // warm-up: module loading, JIT
  await turn(true)
  const overheads: number[] = []
  const directs: number[] = []
  const ratios: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order so drifting machine load hits both sides alike.
    const first = round % 2 === 0
    const plain = first ? await turn(false) : 0
    const hooked = await turn(true)
    const plainAfter = first ? plain : await turn(false)
    const direct = await directSpawns()
    const overhead = (hooked - plainAfter) / CALLS
    overheads.push(overhead)
    directs.push(direct / CALLS)
    ratios.push(overhead / (direct / CALLS))
  }
  const ratio = median(ratios)
  return [
    {
      name: `hook overhead per tool call (${CALLS} bash calls, 3 PreToolUse + 2 PostToolUse hooks)`,
      measured: `${median(overheads).toFixed(1)} ms/call`,
      baseline: `spawning the 5 hook processes directly: ${median(directs).toFixed(1)} ms/call`,
      ratio,
      target: `≤ ${TARGET_RATIO}× time`,
      pass: ratio <= TARGET_RATIO,
    },
  ]
}
