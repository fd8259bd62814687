// CLI cold-start benchmarks: `dsh --version`, the first model request of `dsh run`
// (the shipped bin with its code cache, the same bin without the cache, and unbundled) and
// `dsh sessions list` over 1,000 stored sessions, as child processes, against `node -e 0`
// measured in the same run.

import { spawn, spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startLoopbackModel } from '../src/llm/scripted/loopback-server.js'
import { eventLines, headerLine } from '../src/persistence/jsonl/codec.js'
import { bucketFor, encodeSessionId } from '../src/persistence/jsonl/layout.js'
import type { SessionEvent } from '../src/session/types.js'
import { emptyLedger } from '../src/usage/ledger.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const CLI = fileURLToPath(new URL('../bundle/main.js', import.meta.url))
/** The same command line unbundled (tsc's output), to show what bundling buys. */
const CLI_UNBUNDLED = fileURLToPath(new URL('../src/apps/cli/main.js', import.meta.url))
const FIRST_REQUEST_SAMPLES = 9
const FIRST_REQUEST_TARGET_RATIO = 2
const SESSIONS = 1_000
const WARMUP = 3
const SAMPLES = 15
const VERSION_TARGET_RATIO = 1.3
const LIST_TARGET_RATIO = 5

export default async function run(): Promise<BenchRow[]> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-cli-')))
  try {
    const home = join(root, 'home')
    const project = join(root, 'project')
    mkdirSync(project, { recursive: true })
    writeSessions(join(home, 'sessions'), project, SESSIONS)
    const env: NodeJS.ProcessEnv = { ...process.env, DSH_HOME: home, NO_COLOR: '1' }
    const node = () => spawnTimed(['-e', '0'], env, project)
    const version = () => spawnTimed([CLI, '--version'], env, project)
    const list = () => {
      const { ms, stdout } = spawnTimedOutput([CLI, 'sessions', 'list'], env, project)
      const rows = stdout.trimEnd().split('\n').length - 1
      if (rows !== SESSIONS) throw new Error(`dsh sessions list printed ${rows} rows, expected ${SESSIONS}`)
      return ms
    }
    for (let i = 0; i < WARMUP; i++) {
      node()
      version()
      list()
    }
    // Interleaved, so all three series see the same machine load.
    const times = { node: [] as number[], version: [] as number[], list: [] as number[] }
    for (let i = 0; i < SAMPLES; i++) {
      times.node.push(node())
      times.version.push(version())
      times.list.push(list())
    }
    const baseline = median(times.node)
    const first = await firstRequestTimes(root, env, project)
    return [
      row('dsh --version, cold start (median)', median(times.version), baseline, VERSION_TARGET_RATIO),
      row(
        'dsh run: first model request after start (median)',
        median(first.bundled),
        median(first.node),
        FIRST_REQUEST_TARGET_RATIO,
      ),
      row(
        '  the same bin without its code cache (median)',
        median(first.noCache),
        median(first.node),
        FIRST_REQUEST_TARGET_RATIO,
      ),
      row(
        '  the same, unbundled tsc output (median)',
        median(first.unbundled),
        median(first.node),
        FIRST_REQUEST_TARGET_RATIO,
      ),
      row(
        `dsh sessions list, ${SESSIONS} sessions (median)`,
        median(times.list),
        baseline,
        LIST_TARGET_RATIO,
      ),
    ]
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

/**
 * Time from spawning `dsh run hi` until the loopback model receives its request, for the
 * bundle and the unbundled build, interleaved with `node -e 0`.
 */
async function firstRequestTimes(
  root: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ node: number[]; bundled: number[]; noCache: number[]; unbundled: number[] }> {
  let requestedAt = 0
  const reply = () => {
    requestedAt = performance.now()
    return { text: 'ok' }
  }
  const rounds = 3 * (FIRST_REQUEST_SAMPLES + 1)
  const model = await startLoopbackModel(Array.from({ length: rounds }, () => reply))
  const home = join(root, 'run-home')
  mkdirSync(home, { recursive: true })
  writeFileSync(join(home, 'config.yaml'), `model:\n  baseUrl: ${model.baseUrl}\n  maxRetries: 0\n`)
  const runEnv = { ...env, DSH_HOME: home, DEEPSEEK_API_KEY: 'bench-key' }
  const timeRun = async (cli: string) => {
    const started = performance.now()
    const child = spawn(process.execPath, [cli, 'run', 'hi'], { env: runEnv, cwd, stdio: 'ignore' })
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    if (code !== 0) throw new Error(`dsh run exited ${code}`)
    return requestedAt - started
  }
  const noCache = copyWithoutCache(root)
  const times = {
    node: [] as number[],
    bundled: [] as number[],
    noCache: [] as number[],
    unbundled: [] as number[],
  }
  try {
    await timeRun(CLI) // warm-up
    await timeRun(noCache)
    await timeRun(CLI_UNBUNDLED)
    for (let i = 0; i < FIRST_REQUEST_SAMPLES; i++) {
      times.node.push(spawnTimed(['-e', '0'], env, cwd))
      times.bundled.push(await timeRun(CLI))
      times.noCache.push(await timeRun(noCache))
      times.unbundled.push(await timeRun(CLI_UNBUNDLED))
    }
  } finally {
    await model.close()
  }
  return times
}

/**
 * The installed bin without its V8 code cache, as on a Node whose V8 rejects it: a copy of
 * dist/bundle laid out as an install (package.json, node_modules) with cli.js.cache removed.
 */
function copyWithoutCache(root: string): string {
  const repo = fileURLToPath(new URL('../../', import.meta.url))
  const install = join(root, 'no-cache')
  const bundle = join(install, 'dist', 'bundle')
  cpSync(dirname(CLI), bundle, { recursive: true })
  rmSync(join(bundle, 'cli.js.cache'))
  cpSync(join(repo, 'package.json'), join(install, 'package.json'))
  symlinkSync(join(repo, 'node_modules'), join(install, 'node_modules'))
  return join(bundle, 'main.js')
}

function row(name: string, measured: number, baseline: number, target: number): BenchRow {
  const ratio = measured / baseline
  return {
    name,
    measured: `${measured.toFixed(1)} ms`,
    baseline: `${baseline.toFixed(1)} ms node -e 0`,
    ratio,
    target: `≤ ${target}× node -e 0`,
    pass: ratio <= target,
  }
}

/** One model step's usage, so the USAGE column has tokens and a cost to show. */
const USAGE = { promptTokens: 12_000, completionTokens: 800, totalTokens: 12_800, cachedTokens: 11_000 }

/**
 * Writes `count` finished one-turn sessions of `cwd` straight into the JSONL layout, with
 * the backend's codec (the turn/end line carries the usage ledger, as the backend writes it).
 */
function writeSessions(root: string, cwd: string, count: number): void {
  const bucket = join(root, bucketFor(cwd))
  mkdirSync(bucket, { recursive: true, mode: 0o700 })
  const now = Date.now()
  for (let i = 0; i < count; i++) {
    const id = `bench-session-${i}`
    const time = now - (count - i) * 1_000
    const events: SessionEvent[] = [
      { seq: 0, type: 'turn/start', time, data: { turn: 1 } },
      { seq: 1, type: 'user/message', time, data: { text: `benchmark prompt number ${i}` } },
      { seq: 2, type: 'request/config', time, data: { model: 'deepseek-flash', system: 'bench', tools: [] } },
      { seq: 3, type: 'step/start', time, data: { turn: 1, step: 1 } },
      {
        seq: 4,
        type: 'assistant/message',
        time,
        data: { message: { content: `answer ${i}` }, usage: USAGE },
      },
      { seq: 5, type: 'step/end', time, data: { turn: 1, step: 1, finishReason: 'stop' } },
      { seq: 6, type: 'turn/end', time, data: { turn: 1, reason: 'completed' } },
    ]
    const header = { version: 1, id, createdAt: time, cwd, delegationDepth: 0 }
    const text = headerLine(header) + eventLines(events, emptyLedger())
    writeFileSync(join(bucket, `${encodeSessionId(id)}.jsonl`), text, { mode: 0o600 })
  }
}

function spawnTimed(args: string[], env: NodeJS.ProcessEnv, cwd: string): number {
  return spawnTimedOutput(args, env, cwd).ms
}

function spawnTimedOutput(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): { ms: number; stdout: string } {
  const started = performance.now()
  const result = spawnSync(process.execPath, args, { env, cwd, encoding: 'utf8' })
  const ms = performance.now() - started
  if (result.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr.trim().split('\n')[0]}`)
  }
  return { ms, stdout: result.stdout }
}
