// Runs every benchmark module in sequence and prints one table. Exits 0 even when
// a target is missed (the row says MISSED): figures are for reading, not gating. A row
// with no target of its own says `info`.
// Run with `npm run bench` (builds, then `node dist/bench/run.js`).

import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { BenchModule, BenchRow } from './types.js'

/** Every benchmark module, run in this order. Add new ones here. */
const MODULES: { name: string; load: () => Promise<BenchModule> }[] = [
  { name: 'persistence', load: () => import('./persistence.bench.js') },
  { name: 'postgres', load: () => import('./postgres.bench.js') },
  { name: 'agent', load: () => import('./agent.bench.js') },
  { name: 'request', load: () => import('./request.bench.js') },
  { name: 'context', load: () => import('./context.bench.js') },
  { name: 'shell', load: () => import('./shell.bench.js') },
  { name: 'cli', load: () => import('./cli.bench.js') },
  { name: 'headless-turn', load: () => import('./headless-turn.bench.js') },
  { name: 'fs-tools', load: () => import('./fs-tools.bench.js') },
  { name: 'web', load: () => import('./web.bench.js') },
  { name: 'mcp', load: () => import('./mcp.bench.js') },
  { name: 'hooks', load: () => import('./hooks.bench.js') },
  { name: 'chat', load: () => import('./chat.bench.js') },
  { name: 'web-ui', load: () => import('./web-ui.bench.js') },
  { name: 'terminal', load: () => import('./terminal.bench.js') },
  { name: 'lsp', load: () => import('./lsp.bench.js') },
  { name: 'images', load: () => import('./images.bench.js') },
  { name: 'history', load: () => import('./history.bench.js') },
]

function table(rows: BenchRow[]): string {
  const header = ['benchmark', 'measured', 'baseline', 'ratio', 'target', 'result']
  const cells = rows.map((row) => [
    row.name,
    row.measured,
    row.baseline,
    `${row.ratio.toFixed(2)}×`,
    row.target,
    row.informational ? 'info' : row.pass ? 'ok' : 'MISSED',
  ])
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column]!.length)),
  )
  const format = (line: string[]) => line.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')
  return [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.map(format)].join(
    '\n',
  )
}

/** Runs one module in this process and prints its rows as JSON (the child side). */
async function runChild(name: string): Promise<void> {
  const module = MODULES.find((candidate) => candidate.name === name)!
  let rows: BenchRow[]
  try {
    rows = await (await module.load()).default()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    rows = [{ name: `${name}: failed`, measured: message, baseline: '-', ratio: 0, target: '-', pass: false }]
  }
  process.stdout.write(JSON.stringify(rows))
}

/**
 * Every module runs in a fresh Node process: one module's heap (100,000 loaded events)
 * must not slow the next one's measurements (fork of a large heap, GC pauses).
 */
function runIsolated(name: string): BenchRow[] {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', name], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  })
  try {
    return JSON.parse(child.stdout) as BenchRow[]
  } catch {
    return [
      {
        name: `${name}: failed`,
        measured: `exit ${child.status}`,
        baseline: '-',
        ratio: 0,
        target: '-',
        pass: false,
      },
    ]
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  if (args[0] === '--child') return runChild(args[1]!)
  const rows: BenchRow[] = []
  for (const module of MODULES) {
    if (args.length > 0 && !args.includes(module.name)) continue
    process.stderr.write(`running ${module.name} benchmarks…\n`)
    rows.push(...runIsolated(module.name))
  }
  process.stdout.write(`${table(rows)}\n`)
  const missed = rows.filter((row) => !row.pass).length
  process.stdout.write(missed === 0 ? 'all targets met\n' : `${missed} target(s) MISSED\n`)
}

await main()
