// A headless turn of 20 sequential `bash true` calls (issue #31): `dsh run` from spawn to
// exit, against the loopback model, compared with its floor measured in the same run —
// `node -e 0` plus 20 sequential `bash -c true` spawns — and the `dsh run` process's peak
// RSS (the largest resident size of it and the bash children it waited for). For reading,
// the same turn by bench/minimal-turn.cjs (no dsh code: the model round trips, two fsync'd
// appends per step and the spawns) against the same floor, and dsh against it: what the
// floor leaves out, and what dsh adds.

import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Script, startLoopbackModel } from '../src/llm/index.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const CLI = fileURLToPath(new URL('../bundle/main.js', import.meta.url))
// Not compiled: bench/ itself (dist/bench/.. is dist/, ../.. the package).
const MINIMAL_TURN = fileURLToPath(new URL('../../bench/minimal-turn.cjs', import.meta.url))
const CALLS = 20
const SAMPLES = 7
const TIME_TARGET_RATIO = 2
const RSS_TARGET_MB = 64
/** Runs its arguments as a child and prints the child's peak RSS in KB (getrusage of children). */
const PEAK_RSS = [
  '-c',
  'import resource, subprocess, sys\n' +
    'code = subprocess.run(sys.argv[1:]).returncode\n' +
    'print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n' +
    'sys.exit(code)',
]

/** One turn: 20 steps of one `true` each (the comment differs, or the repeat guard ends the turn), then an answer. */
function turn(): Script {
  const steps: Script[number][] = []
  for (let i = 0; i < CALLS; i++)
    steps.push({ toolCalls: [{ name: 'bash', arguments: { command: `true # ${i}` } }] })
  steps.push({ text: 'done' })
  return steps
}

export default async function run(): Promise<BenchRow[]> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-turn-')))
  const runs = 1 + 3 * SAMPLES // a warm-up, then timed runs, minimal turns and RSS runs
  const model = await startLoopbackModel(Array.from({ length: runs }, turn).flat())
  try {
    const home = join(root, 'home')
    const project = join(root, 'project')
    mkdirSync(home, { recursive: true })
    mkdirSync(project, { recursive: true })
    writeFileSync(join(home, 'config.yaml'), `model:\n  baseUrl: ${model.baseUrl}\n  maxRetries: 0\n`)
    const env = { ...process.env, DSH_HOME: home, DEEPSEEK_API_KEY: 'bench-key', NO_COLOR: '1' }
    const args = [CLI, 'run', '--permission-mode', 'bypassPermissions', 'run true 20 times']
    const dsh = () => timed(process.execPath, args, env, project)
    const minimal = () => timed(process.execPath, [MINIMAL_TURN, 'run true 20 times'], env, project)
    const floor = async () => {
      const node = await timed(process.execPath, ['-e', '0'], env, project)
      let bash = 0
      for (let i = 0; i < CALLS; i++) bash += await timed('bash', ['-c', 'true'], env, project)
      return node + bash
    }
    await dsh() // warm-up
    const times = {
      dsh: [] as number[],
      floor: [] as number[],
      minimal: [] as number[],
      rssKb: [] as number[],
    }
    for (let i = 0; i < SAMPLES; i++) {
      times.floor.push(await floor())
      times.dsh.push(await dsh())
      times.minimal.push(await minimal())
      times.rssKb.push(await peakRssKb(args, env, project))
    }
    const ratio = median(times.dsh) / median(times.floor)
    const rssMb = median(times.rssKb) / 1024
    const floorMs = `${median(times.floor).toFixed(1)} ms (the floor above)`
    return [
      {
        name: `dsh run: a headless turn of ${CALLS} sequential bash true calls (median)`,
        measured: `${median(times.dsh).toFixed(1)} ms`,
        baseline: `${median(times.floor).toFixed(1)} ms (node -e 0 + ${CALLS} × bash -c true)`,
        ratio,
        target: `≤ ${TIME_TARGET_RATIO}× its floor`,
        pass: ratio <= TIME_TARGET_RATIO,
      },
      {
        name: '  its peak RSS (median)',
        measured: `${rssMb.toFixed(1)} MB`,
        baseline: `${RSS_TARGET_MB} MB (the target itself)`,
        ratio: rssMb / RSS_TARGET_MB,
        target: `≤ ${RSS_TARGET_MB} MB`,
        pass: rssMb <= RSS_TARGET_MB,
      },
      {
        name: '  the same turn with no dsh code (bench/minimal-turn.cjs)',
        measured: `${median(times.minimal).toFixed(1)} ms`,
        baseline: floorMs,
        ratio: median(times.minimal) / median(times.floor),
        target: 'information only: what the floor leaves out',
        pass: true,
        informational: true,
      },
      {
        name: '  dsh run against that minimal turn',
        measured: `${median(times.dsh).toFixed(1)} ms`,
        baseline: `${median(times.minimal).toFixed(1)} ms (the minimal turn)`,
        ratio: median(times.dsh) / median(times.minimal),
        target: 'information only: what dsh adds',
        pass: true,
        informational: true,
      },
    ]
  } finally {
    await model.close()
    rmSync(root, { recursive: true, force: true })
  }
}

/** Wall time from spawn to exit; a failed run throws (a bench of a failing turn means nothing). */
async function timed(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const started = performance.now()
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  const ms = performance.now() - started
  if (code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n')[0]}`)
  return ms
}

/** The peak RSS of one `dsh run`, in KB, read by a python3 parent (Node cannot read a child's rusage). */
async function peakRssKb(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const probe = spawnSync('python3', ['--version'])
  if (probe.status !== 0) throw new Error('python3 is needed to read the peak RSS of a child process')
  const child = spawn('python3', [...PEAK_RSS, process.execPath, ...args], {
    env,
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  if (code !== 0) throw new Error(`dsh run under python3 exited ${code}`)
  return Number(stdout.trim().split('\n').at(-1))
}
