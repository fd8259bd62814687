// Caps and bounds through the real CLI (issue 24): a 29 MB `.mcp.json` (200,000 servers) and a
// 23 MB `.claude/settings.json` are refused before parsing, in one line naming the file;
// SIGTERM while 100 MCP servers are starting ends `dsh run` at once; a model stream that never
// ends is cut at its configured duration or size bound, with a bounded partial answer logged.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, type CliWorld, makeWorld, runCli, spawnCli } from '../apps/cli/cli.js'
import { useLoopbackModels } from '../support/loopback-model.js'
import { processesWith } from '../support/processes.js'
import { useTempDirs } from '../support/temp-dir.js'
import { until } from '../support/until.js'
import { createRandom, reportFigure, SEED, sized } from './size.js'
import { loadStored } from './world.js'

const makeDir = useTempDirs('dsh-rel-caps-')
const startModel = useLoopbackModels()
const random = createRandom(SEED)

beforeAll(assertBuilt)

/** A project (`.git` marker) in a world whose config points at a fresh loopback model. */
async function world(script: Parameters<typeof startModel>[0], extraModelConfig = ''): Promise<CliWorld> {
  const model = await startModel(script)
  const w = makeWorld(makeDir(), model.baseUrl, extraModelConfig)
  mkdirSync(join(w.project, '.git'))
  return w
}

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '')
const maxOf = (values: number[]) => Math.max(...values)
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

describe('project file caps', () => {
  it('refuses a 29 MB .mcp.json and a 23 MB settings file in one line each, before parsing', async () => {
    const servers: Record<string, unknown> = {}
    for (let i = 0; i < 200_000; i++) {
      servers[`server_${i}`] = { command: '/nonexistent/server', args: ['--padding', 'x'.repeat(75)] }
    }
    const mcpJson = JSON.stringify({ mcpServers: servers })
    const allow = Array.from({ length: 1_150_000 }, (_, i) => `Bash(tool-${i})`)
    const settings = JSON.stringify({ permissions: { allow } })
    expect(mcpJson.length).toBeGreaterThan(29_000_000)
    expect(settings.length).toBeGreaterThan(23_000_000)

    const trials = sized({ ci: 3, full: 10 })
    const mcpMs: number[] = []
    const settingsMs: number[] = []
    for (let trial = 0; trial < trials; trial++) {
      const w = await world([{ text: 'answered' }])
      writeFileSync(join(w.project, '.mcp.json'), mcpJson)
      let started = Date.now()
      const run = await runCli(['run', 'hi'], { env: w.env, cwd: w.project })
      mcpMs.push(Date.now() - started)
      expect(run.code, run.stderr).toBe(0)
      const mcpLines = lines(run.stderr).filter((line) => line.includes('.mcp.json'))
      expect(mcpLines).toEqual([
        `dsh: warning: mcp: ${join(w.project, '.mcp.json')}: MCP file is ${mcpJson.length} bytes; the limit is 1048576 (1 MiB); no servers loaded`,
      ])

      const s = await world([{ text: 'never asked' }])
      mkdirSync(join(s.project, '.claude'))
      writeFileSync(join(s.project, '.claude', 'settings.json'), settings)
      started = Date.now()
      const refused = await runCli(['run', 'hi'], { env: s.env, cwd: s.project })
      settingsMs.push(Date.now() - started)
      expect(refused.code).toBe(1)
      expect(lines(refused.stderr)).toEqual([
        `dsh: ${join(s.project, '.claude', 'settings.json')}: settings file is ${settings.length} bytes; the limit is 1048576 (1 MiB)`,
      ])
    }
    // Generous for a busy 2-core machine; the figures go to RELIABILITY.md.
    expect(maxOf(mcpMs)).toBeLessThan(5_000)
    expect(maxOf(settingsMs)).toBeLessThan(5_000)
    reportFigure('caps-files', {
      trials,
      mcpJsonBytes: mcpJson.length,
      settingsBytes: settings.length,
      mcpRunMedianMs: median(mcpMs),
      mcpRunMaxMs: maxOf(mcpMs),
      settingsRunMedianMs: median(settingsMs),
      settingsRunMaxMs: maxOf(settingsMs),
    })
  })
})

describe('SIGTERM during MCP start-up', () => {
  it('exits 143 at once while 100 servers are still starting, leaving none running', async () => {
    const trials = sized({ ci: 5, full: 30 })
    const exitMs: number[] = []
    for (let trial = 0; trial < trials; trial++) {
      const marker = `rel-mcp-start-${SEED}-${trial}`
      // `dsh run` does not wait for servers: the model holds its answer so the run is still on.
      const w = await world([{ text: 'never asked', delayMs: 60_000 }])
      const servers = Object.fromEntries(
        // Never answers `initialize` (each stays starting for its 30 s timeout) and, like a
        // well-behaved stdio server, exits when its stdin closes; the marker is its $0.
        Array.from({ length: 100 }, (_, i) => [
          `s${i}`,
          { command: 'sh', args: ['-c', 'cat > /dev/null; exit 0', marker] },
        ]),
      )
      writeFileSync(join(w.project, '.mcp.json'), JSON.stringify({ mcpServers: servers }))
      const cli = spawnCli(['run', '--trust-project', 'hi'], {
        env: w.env,
        cwd: w.project,
        timeoutMs: 60_000,
      })
      // A random point of start-up: after the first server process appears, before or after all 100 do.
      await until(() => processesWith(marker).length > 0, 30_000, 'the first MCP server')
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 400)))
      const sent = Date.now()
      cli.child.kill('SIGTERM')
      const result = await cli.done
      exitMs.push(Date.now() - sent)
      expect(result.code, result.stderr).toBe(143)
      await until(() => processesWith(marker).length === 0, 10_000, 'the MCP servers to end')
    }
    expect(maxOf(exitMs)).toBeLessThan(3_000)
    reportFigure('caps-sigterm-startup', {
      trials,
      servers: 100,
      exitMedianMs: median(exitMs),
      exitMaxMs: maxOf(exitMs),
    })
  })
})

describe('MCP servers at exit', () => {
  it('kills a starting server that ignores end-of-input and SIGTERM when dsh exits on SIGTERM', async () => {
    const marker = `rel-mcp-stubborn-${SEED}`
    // `dsh run` does not wait for servers: the model holds its answer so the run is still on.
    const w = await world([{ text: 'never asked', delayMs: 60_000 }])
    const servers = Object.fromEntries(
      // Ignores its stdin closing and SIGTERM: only a kill ends it. The marker is its $0.
      Array.from({ length: 5 }, (_, i) => [
        `s${i}`,
        { command: 'sh', args: ['-c', 'trap "" TERM; while :; do sleep 1; done', marker] },
      ]),
    )
    writeFileSync(join(w.project, '.mcp.json'), JSON.stringify({ mcpServers: servers }))
    const cli = spawnCli(['run', '--trust-project', 'hi'], { env: w.env, cwd: w.project, timeoutMs: 60_000 })
    await until(() => processesWith(marker).length === 5, 30_000, 'the five MCP servers')
    cli.child.kill('SIGTERM')
    const result = await cli.done
    expect(result.code, result.stderr).toBe(143)
    const sent = Date.now()
    await until(() => processesWith(marker).length === 0, 10_000, 'the MCP servers to end')
    reportFigure('mcp-exit-kill', {
      servers: 5,
      leftAfterExit: processesWith(marker).length,
      goneMs: Date.now() - sent,
    })
  })
})

describe('model stream bounds', () => {
  it('ends an endless stream at streamMaxDurationMs and at streamMaxBytes, logging a bounded answer', async () => {
    const cases = [
      {
        bound: 'duration',
        config: '  streamMaxDurationMs: 1500\n',
        text: 'more ',
        pattern: /still streaming after 1500 ms/,
      },
      {
        bound: 'bytes',
        config: '  streamMaxBytes: 65536\n',
        text: 'x'.repeat(100),
        pattern: /passed 65536 bytes of text/,
      },
    ]
    const figures: Record<string, number> = {}
    for (const { bound, config, text, pattern } of cases) {
      const w = await world([{ endless: { text, intervalMs: 5 } }, { text: 'never asked' }], config)
      const id = `endless-${bound}`
      const started = Date.now()
      const run = await runCli(['run', '--session-id', id, 'hi'], {
        env: w.env,
        cwd: w.project,
        timeoutMs: 60_000,
      })
      const ms = Date.now() - started
      expect(run.code).toBe(1)
      const errors = lines(run.stderr).filter((line) => line.startsWith('turn ended'))
      expect(errors).toHaveLength(1)
      expect(errors[0]).toMatch(/^turn ended: error — model request failed: response past its bound/)
      expect(errors[0]).toMatch(pattern)
      const stored = await loadStored(w, 'jsonl', id)
      const answer = stored.events
        .filter((event) => event.type === 'assistant/message')
        .map((event) => (event.data as { message: { content: string } }).message.content)
        .join('')
      if (bound === 'bytes') expect(Buffer.byteLength(answer)).toBeLessThanOrEqual(65_536)
      else expect(answer.length).toBeGreaterThan(0)
      figures[`${bound}RunMs`] = ms
      figures[`${bound}LoggedBytes`] = Buffer.byteLength(answer)
    }
    expect(figures.durationRunMs!).toBeLessThan(15_000)
    reportFigure('stream-bounds', figures)
  })
})
