// MCP benchmarks: a tool call through dsh's tool pipeline (registry → provider → argument
// validation → SDK client → stdio server → result conversion) against a bare SDK client
// calling the same server in the same run; and five servers starting in parallel through
// dsh against the same five started at once by bare SDK clients (the slowest one's start
// time while the other four also start), with the slowest alone for reading.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { Context } from 'cordis'
import { currentService } from '../src/core/service-ref.js'
import { McpManager, type McpServerConfig, mcpToolsPlugin } from '../src/mcp/index.js'
import type { AgentHandle } from '../src/plugin-api/agent.js'
import type { ToolExecution } from '../src/plugin-api/tools.js'
import { Session } from '../src/session/index.js'
import { ToolRegistry } from '../src/tools/index.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

// Built to dist/bench/mcp.bench.js; the server stays in the source tree.
const SERVER = fileURLToPath(new URL('../../bench/fixtures/mcp-bench-server.mjs', import.meta.url))
const CALL_WARMUP = 50
const CALL_SAMPLES = 400
const START_DELAYS_MS = [200, 400, 600, 800, 1000]
const START_ROUNDS = 7
const TARGET_RATIO = 1.3

export default async function run(): Promise<BenchRow[]> {
  return [await benchToolCall(), await benchParallelStart()]
}

function agentIn(cwd: string): AgentHandle {
  const session = new Session({ version: 1, id: 'bench-mcp', createdAt: Date.now(), delegationDepth: 0, cwd })
  return { id: session.id, session, cwd } as unknown as AgentHandle
}

async function harness(home: string, servers: Record<string, McpServerConfig>) {
  const ctx = new Context()
  const fibers = [
    ctx.plugin(ToolRegistry),
    ctx.plugin(McpManager, { servers, home }),
    ctx.plugin(mcpToolsPlugin),
  ]
  await Promise.all(fibers.map((fiber) => fiber.await()))
  return {
    ctx,
    async close() {
      await ctx.mcp.closeAll()
      for (const fiber of fibers.reverse()) await fiber.dispose()
    },
  }
}

async function benchToolCall(): Promise<BenchRow> {
  const home = mkdtempSync(join(tmpdir(), 'dsh-bench-mcp-'))
  const dsh = await harness(home, { bench: { command: process.execPath, args: [SERVER], env: {} } })
  const bare = new Client({ name: 'bench', version: '1' })
  await bare.connect(
    new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'ignore' }),
  )
  try {
    const agent = agentIn(home)
    await dsh.ctx.mcp.prepare(agent)
    const execution: ToolExecution = { agent, callId: 'call-bench', signal: new AbortController().signal }
    // The registry reached as the agent's tool scheduler reaches it (src/agent/services.ts).
    const tools = currentService(dsh.ctx, 'tools')
    const viaDsh = async () => {
      const output = await tools()!.run('mcp__bench__echo', '{"text":"ping"}', execution)
      if (output.content !== 'ping') throw new Error(`unexpected MCP output: ${output.content}`)
    }
    const viaBare = async () => {
      const result = (await bare.callTool({ name: 'echo', arguments: { text: 'ping' } })) as {
        content: { text: string }[]
      }
      if (result.content[0]?.text !== 'ping') throw new Error('unexpected bare output')
    }
    for (let i = 0; i < CALL_WARMUP; i++) {
      await viaDsh()
      await viaBare()
    }
    // Interleaved, so load on the shared machine hits both sides alike.
    const dshTimes: number[] = []
    const bareTimes: number[] = []
    for (let i = 0; i < CALL_SAMPLES; i++) {
      let start = performance.now()
      await viaDsh()
      dshTimes.push(performance.now() - start)
      start = performance.now()
      await viaBare()
      bareTimes.push(performance.now() - start)
    }
    const measured = median(dshTimes)
    const baseline = median(bareTimes)
    const ratio = measured / baseline
    return {
      name: `MCP tool call, stdio round trip (median of ${CALL_SAMPLES})`,
      measured: `${(measured * 1000).toFixed(0)} µs`,
      baseline: `bare SDK client: ${(baseline * 1000).toFixed(0)} µs`,
      ratio,
      target: `≤ ${TARGET_RATIO}×`,
      pass: ratio <= TARGET_RATIO,
    }
  } finally {
    await bare.close()
    await dsh.close()
    rmSync(home, { recursive: true, force: true })
  }
}

/** Time until every server is connected, through the manager as an agent's first step starts them. */
async function timeDshStart(delays: readonly number[]): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), 'dsh-bench-mcp-'))
  const servers = Object.fromEntries(
    delays.map((delay, i) => [
      `s${i}`,
      { command: process.execPath, args: [SERVER], env: { BENCH_START_DELAY_MS: String(delay) } },
    ]),
  )
  const dsh = await harness(home, servers)
  try {
    const start = performance.now()
    await dsh.ctx.mcp.prepare(agentIn(home))
    const elapsed = performance.now() - start
    const states = dsh.ctx.mcp.status().map((row) => row.state)
    if (states.some((state) => state !== 'connected')) throw new Error(`servers did not start: ${states}`)
    return elapsed
  } finally {
    await dsh.close()
    rmSync(home, { recursive: true, force: true })
  }
}

/**
 * The same servers started at once by bare SDK clients (connect + tools/list each, as dsh
 * does): the time until the slowest is up while the other four also start.
 */
async function timeBareStart(delays: readonly number[]): Promise<number> {
  const clients: Client[] = []
  const start = performance.now()
  try {
    await Promise.all(
      delays.map(async (delay) => {
        const client = new Client({ name: 'bench', version: '1' })
        clients.push(client)
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [SERVER],
            env: { ...process.env, BENCH_START_DELAY_MS: String(delay) } as Record<string, string>,
            stderr: 'ignore',
          }),
        )
        await client.listTools()
      }),
    )
    return performance.now() - start
  } finally {
    await Promise.all(clients.map((client) => client.close()))
  }
}

async function benchParallelStart(): Promise<BenchRow> {
  const slowest = Math.max(...START_DELAYS_MS)
  // Warm-up: the client side's SDK import happens once per process, not in a measurement.
  await timeBareStart([0])
  await timeDshStart([0])
  const together: number[] = []
  const bare: number[] = []
  const alone: number[] = []
  const ratios: number[] = []
  for (let round = 0; round < START_ROUNDS; round++) {
    // Alternating which side goes first, so a load change on the shared machine hits both alike.
    let dshTime: number
    let bareTime: number
    if (round % 2 === 0) {
      dshTime = await timeDshStart(START_DELAYS_MS)
      bareTime = await timeBareStart(START_DELAYS_MS)
    } else {
      bareTime = await timeBareStart(START_DELAYS_MS)
      dshTime = await timeDshStart(START_DELAYS_MS)
    }
    together.push(dshTime)
    bare.push(bareTime)
    ratios.push(dshTime / bareTime)
    alone.push(await timeDshStart([slowest]))
  }
  const measured = median(together)
  const ratio = median(ratios)
  return {
    name: `5 stdio servers start in parallel (start-up waits ${START_DELAYS_MS.join('/')} ms; ${START_ROUNDS} rounds, median ratio)`,
    measured: `${measured.toFixed(0)} ms`,
    baseline: `slowest up while the other 4 start (bare SDK clients): ${median(bare).toFixed(0)} ms; slowest alone: ${median(alone).toFixed(0)} ms`,
    ratio,
    target: `≤ ${TARGET_RATIO}×`,
    pass: ratio <= TARGET_RATIO,
  }
}
