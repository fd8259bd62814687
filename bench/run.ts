// Runs every benchmark module in sequence and prints one table. Exits 0 even when
// a target is missed (the row says MISSED): figures are for reading, not gating.
// Run with `npm run bench` (builds, then `node dist/bench/run.js`).

import type { BenchModule, BenchRow } from './types.js'

/** Every benchmark module, run in this order. Add new ones here. */
const MODULES: { name: string; load: () => Promise<BenchModule> }[] = [
  { name: 'persistence', load: () => import('./persistence.bench.js') },
  { name: 'agent', load: () => import('./agent.bench.js') },
  { name: 'shell', load: () => import('./shell.bench.js') },
  { name: 'cli', load: () => import('./cli.bench.js') },
]

function table(rows: BenchRow[]): string {
  const header = ['benchmark', 'measured', 'baseline', 'ratio', 'target', 'result']
  const cells = rows.map((row) => [
    row.name,
    row.measured,
    row.baseline,
    `${row.ratio.toFixed(2)}×`,
    row.target,
    row.pass ? 'ok' : 'MISSED',
  ])
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column]!.length)),
  )
  const format = (line: string[]) => line.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')
  return [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.map(format)].join(
    '\n',
  )
}

async function main(): Promise<void> {
  const only = process.argv.slice(2)
  const rows: BenchRow[] = []
  for (const module of MODULES) {
    if (only.length > 0 && !only.includes(module.name)) continue
    process.stderr.write(`running ${module.name} benchmarks…\n`)
    try {
      rows.push(...(await (await module.load()).default()))
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      rows.push({
        name: `${module.name}: failed`,
        measured: message,
        baseline: '-',
        ratio: 0,
        target: '-',
        pass: false,
      })
    }
  }
  process.stdout.write(`${table(rows)}\n`)
  const missed = rows.filter((row) => !row.pass).length
  process.stdout.write(missed === 0 ? 'all targets met\n' : `${missed} target(s) MISSED\n`)
}

await main()
