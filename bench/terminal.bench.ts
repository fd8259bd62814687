// Terminal benchmarks: a keystroke's round trip through terminal_send + terminal_read
// against node-pty and @xterm/headless used directly, 10 MB of output through a terminal
// against a raw PTY read, both in the same run, and the harness's RSS growth meanwhile.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawn as ptySpawn } from '@lydell/node-pty'
import xterm from '@xterm/headless'
import { Context, type Fiber } from 'cordis'
import type { AgentHandle } from '../src/plugin-api/agent.js'
import type { ToolExecution } from '../src/plugin-api/tools.js'
import { Session } from '../src/session/index.js'
import { LocalShellExecutor, ShellEnvRegistry } from '../src/shell/index.js'
import { TerminalService } from '../src/terminal/index.js'
import { ToolRegistry } from '../src/tools/index.js'
import { TerminalToolsPlugin } from '../src/tools/terminal/index.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const KEY_WARMUP = 30
const KEY_SAMPLES = 300
const OUTPUT_BYTES = 10_000_000
const OUTPUT_RUNS = 3
const LATENCY_TARGET = 1.5
const THROUGHPUT_TARGET = 1.5
const RSS_TARGET_MB = 20
/** 10 MB of 100-character lines, then a marker. */
const FLOOD = `head -c ${OUTPUT_BYTES} /dev/zero | tr '\\0' x | fold -w 99; echo END""MARK`

export default async function run(): Promise<BenchRow[]> {
  const home = mkdtempSync(join(tmpdir(), 'dsh-bench-terminal-'))
  const ctx = new Context()
  const fibers: Fiber[] = [
    ctx.plugin(ToolRegistry),
    ctx.plugin(ShellEnvRegistry, { home }),
    ctx.plugin(LocalShellExecutor),
    ctx.plugin(TerminalService),
    ctx.plugin(TerminalToolsPlugin, { settleMs: 50 }),
  ]
  try {
    await Promise.all(fibers.map((fiber) => fiber.await()))
    const execution = benchExecution(home)
    const tool = async (name: string, args: unknown) => {
      const output = await ctx.get('tools')!.run(name, JSON.stringify(args), execution)
      if (output.isError) throw new Error(`${name}: ${output.content}`)
      return output.content
    }
    const latency = await benchKeystroke(tool)
    const [throughput, rss] = await benchThroughput(tool)
    return [latency, throughput, rss]
  } finally {
    for (const fiber of fibers.reverse()) await fiber.dispose()
    rmSync(home, { recursive: true, force: true })
  }
}

type Tool = (name: string, args: unknown) => Promise<string>

function benchExecution(cwd: string): ToolExecution {
  const session = new Session({
    version: 1,
    id: 'bench-terminal',
    createdAt: Date.now(),
    delegationDepth: 0,
    cwd,
  })
  const agent = { id: session.id, session, cwd } as unknown as AgentHandle
  return { agent, callId: 'call-bench', signal: new AbortController().signal }
}

/** `cat` in a terminal: a typed token is echoed by the terminal at once. */
async function benchKeystroke(tool: Tool): Promise<BenchRow> {
  await tool('terminal_start', { command: 'cat' })
  const viaTools = async (token: string) => {
    await tool('terminal_send', { id: 't1', text: `${token}\n` })
    const reading = await tool('terminal_read', { id: 't1', wait_for: token, timeout_ms: 10_000 })
    if (!reading.includes(token)) throw new Error(`token ${token} not on the screen`)
  }
  const direct = await directTerminal('cat')
  const directly = async (token: string) => {
    const seen = direct.waitFor(token)
    direct.pty.write(`${token}\r`)
    await seen
  }
  let n = 0
  for (let i = 0; i < KEY_WARMUP; i++) {
    await viaTools(`k${n++}z`)
    await directly(`k${n++}z`)
  }
  const toolTimes: number[] = []
  const directTimes: number[] = []
  for (let i = 0; i < KEY_SAMPLES; i++) {
    // Alternate which goes first, so load on the machine hits both alike.
    if (i % 2 === 0) directTimes.push(await time(() => directly(`k${n++}z`)))
    toolTimes.push(await time(() => viaTools(`k${n++}z`)))
    if (i % 2 === 1) directTimes.push(await time(() => directly(`k${n++}z`)))
  }
  direct.close()
  await tool('terminal_kill', { id: 't1' })
  const measured = median(toolTimes)
  const baseline = median(directTimes)
  return {
    name: 'keystroke round trip: terminal_send + terminal_read wait_for (median)',
    measured: `${measured.toFixed(2)} ms`,
    baseline: `${baseline.toFixed(2)} ms node-pty + xterm directly`,
    ratio: measured / baseline,
    target: `≤ ${LATENCY_TARGET}× direct`,
    pass: measured / baseline <= LATENCY_TARGET,
  }
}

async function benchThroughput(tool: Tool): Promise<[BenchRow, BenchRow]> {
  const viaTool: number[] = []
  const raw: number[] = []
  for (let run = 0; run < OUTPUT_RUNS; run++) raw.push(await time(() => rawPty(FLOOD)))
  // Growth is sampled over the terminal floods alone (the raw reads churn memory too).
  const rssBefore = process.memoryUsage().rss
  let rssPeak = rssBefore
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
  }, 20)
  let id = 2
  try {
    for (let run = 0; run < OUTPUT_RUNS; run++) {
      viaTool.push(
        await time(async () => {
          const started = await tool('terminal_start', {
            command: FLOOD,
            ready: 'ENDMARK',
            timeout_ms: 600_000,
          })
          if (!started.includes('(ready)'))
            throw new Error(`the flood did not finish: ${started.slice(0, 300)}`)
        }),
      )
      await tool('terminal_kill', { id: `t${id++}` })
    }
  } finally {
    clearInterval(sampler)
  }
  const measured = median(viaTool)
  const baseline = median(raw)
  const mbPerS = (ms: number) => (OUTPUT_BYTES / 1e6 / (ms / 1000)).toFixed(1)
  const growthMb = (rssPeak - rssBefore) / 1e6
  return [
    {
      name: '10 MB of output through a terminal (median of 3)',
      measured: `${measured.toFixed(0)} ms (${mbPerS(measured)} MB/s)`,
      baseline: `${baseline.toFixed(0)} ms raw PTY read (${mbPerS(baseline)} MB/s)`,
      ratio: measured / baseline,
      target: `≤ ${THROUGHPUT_TARGET}× raw PTY time`,
      pass: measured / baseline <= THROUGHPUT_TARGET,
    },
    {
      name: 'harness RSS growth over three 10 MB floods (peak)',
      measured: `${growthMb.toFixed(1)} MB`,
      baseline: `${RSS_TARGET_MB} MB budget`,
      ratio: growthMb / RSS_TARGET_MB,
      target: `≤ ${RSS_TARGET_MB} MB`,
      pass: growthMb <= RSS_TARGET_MB,
    },
  ]
}

/** node-pty and @xterm/headless wired together by hand: the baseline of the round trip. */
async function directTerminal(command: string) {
  const term = new xterm.Terminal({ cols: 120, rows: 30, allowProposedApi: true })
  const pty = ptySpawn('bash', ['-c', command], {
    name: 'xterm-256color',
    cols: 120,
    rows: 30,
    env: process.env,
  })
  let waiting: { token: string; resolve: () => void } | undefined
  pty.onData((data) =>
    term.write(data, () => {
      if (!waiting) return
      const buffer = term.buffer.active
      const screen: string[] = []
      for (let row = 0; row < term.rows; row++)
        screen.push(buffer.getLine(buffer.baseY + row)?.translateToString(true) ?? '')
      if (screen.join('\n').includes(waiting.token)) {
        const { resolve } = waiting
        waiting = undefined
        resolve()
      }
    }),
  )
  return {
    pty,
    waitFor: (token: string) => new Promise<void>((resolve) => (waiting = { token, resolve })),
    close: () => {
      pty.kill('SIGKILL')
      term.dispose()
    },
  }
}

/** Reads a command's output from a raw PTY until it exits. */
function rawPty(command: string): Promise<void> {
  return new Promise((resolve) => {
    const pty = ptySpawn('bash', ['-c', command], {
      name: 'xterm-256color',
      cols: 120,
      rows: 30,
      env: process.env,
    })
    let bytes = 0
    pty.onData((data) => {
      bytes += data.length
    })
    pty.onExit(() => {
      if (bytes < OUTPUT_BYTES) throw new Error(`raw PTY read only ${bytes} bytes`)
      resolve()
    })
  })
}

async function time(fn: () => Promise<void>): Promise<number> {
  const started = performance.now()
  await fn()
  return performance.now() - started
}
