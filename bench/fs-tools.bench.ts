// File-tool benchmarks on one generated tree, each against a baseline measured in the same
// run: `grep` (system rg path and JavaScript path) vs `grep -rn`, `glob **/*.ts` vs
// `find -name '*.ts'`, and `edit` of a 5 MB file (with its file-history copies and diff)
// vs reading and writing the file with fs.

import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context, type Fiber } from 'cordis'
import type { AgentHandle } from '../src/plugin-api/agent.js'
import type { ToolExecution } from '../src/plugin-api/tools.js'
import { Session } from '../src/session/index.js'
import { FsToolsPlugin } from '../src/tools/fs/index.js'
import { ToolRegistry } from '../src/tools/index.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const FOLDERS = 500
const FILES_PER_FOLDER = 20
const SAMPLES = 7
const EDIT_SAMPLES = 9
const EDIT_FILE_BYTES = 5 * 1024 * 1024

function makeTree(root: string): void {
  const body = Array.from(
    { length: 40 },
    (_, i) => `export const value${i} = compute(${i}) // filler line ${i}`,
  ).join('\n')
  for (let d = 0; d < FOLDERS; d++) {
    const folder = join(root, `pkg${d % 25}`, `mod${d}`)
    mkdirSync(folder, { recursive: true })
    for (let f = 0; f < FILES_PER_FOLDER; f++) {
      const needle = (d * FILES_PER_FOLDER + f) % 50 === 0 ? '\nconst marker = "needle_token"\n' : '\n'
      writeFileSync(join(folder, `file${f}.${f % 2 === 0 ? 'ts' : 'js'}`), body + needle)
    }
  }
}

function spawnTime(command: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] })
    child.stdout.resume()
    child.on('error', reject)
    child.on('close', () => resolve(performance.now() - started))
  })
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await action()
  return performance.now() - started
}

async function medianOf(samples: number, action: () => Promise<number>): Promise<number> {
  await action() // warm-up: page cache, JIT
  const times: number[] = []
  for (let i = 0; i < samples; i++) times.push(await action())
  return median(times)
}

function row(
  name: string,
  measured: number,
  baseline: number,
  baselineName: string,
  limit: number,
): BenchRow {
  const ratio = measured / baseline
  return {
    name,
    measured: `${measured.toFixed(1)} ms`,
    baseline: `${baseline.toFixed(1)} ms (${baselineName})`,
    ratio,
    target: `≤ ${limit}× baseline`,
    pass: ratio <= limit,
  }
}

function execution(cwd: string): ToolExecution {
  const session = new Session({ version: 1, id: 'bench-fs', createdAt: Date.now(), delegationDepth: 0, cwd })
  const agent = { id: session.id, session, cwd } as unknown as AgentHandle
  return { agent, callId: 'call-bench', signal: new AbortController().signal }
}

export default async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-fs-'))
  const tree = join(dir, 'tree')
  const home = join(dir, 'home')
  makeTree(tree)
  const ctx = new Context()
  const fibers: Fiber[] = [ctx.plugin(ToolRegistry)]
  await fibers[0]!.await()
  try {
    const rows: BenchRow[] = []
    const exec = execution(tree)
    const grepArgs = JSON.stringify({ pattern: 'needle_token', output_mode: 'content', head_limit: 1000 })
    const baselineGrep = await medianOf(SAMPLES, () => spawnTime('grep', ['-rn', 'needle_token', tree]))
    for (const engine of ['rg', 'js'] as const) {
      const fiber = ctx.plugin(FsToolsPlugin, { home, grep: { engine } })
      await fiber.await()
      const tools = ctx.get('tools')!
      const call = async () => {
        const output = await tools.run('grep', grepArgs, exec)
        if (!output.content.includes('needle_token') || output.isError)
          throw new Error(`grep failed: ${output.content}`)
      }
      rows.push(
        row(
          `grep 10,000 files (${engine === 'rg' ? 'rg path' : 'JavaScript path'})`,
          await medianOf(SAMPLES, () => timed(call)),
          baselineGrep,
          'grep -rn',
          3,
        ),
      )
      if (engine === 'js') {
        const glob = async () => {
          const output = await tools.run('glob', '{"pattern":"**/*.ts"}', exec)
          if (!output.content.includes('[4900 more files matched'))
            throw new Error(`glob: ${output.content.slice(-200)}`)
        }
        const baselineFind = await medianOf(SAMPLES, () => spawnTime('find', [tree, '-name', '*.ts']))
        rows.push(
          row(
            'glob **/*.ts over 10,000 files',
            await medianOf(SAMPLES, () => timed(glob)),
            baselineFind,
            'find -name',
            2,
          ),
        )
        rows.push(await benchEdit(tools, dir, exec))
      }
      await fiber.dispose()
    }
    return rows
  } finally {
    for (const fiber of fibers.reverse()) await fiber.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function benchEdit(tools: Context['tools'], dir: string, exec: ToolExecution): Promise<BenchRow> {
  const file = join(dir, 'big.txt')
  const line = `${'lorem ipsum dolor sit amet '.repeat(3)}\n`
  const lines = Math.floor(EDIT_FILE_BYTES / line.length)
  const half = Math.floor(lines / 2)
  writeFileSync(file, `${line.repeat(half)}MARK_A\n${line.repeat(lines - half)}`)
  const read = await tools.run('read', JSON.stringify({ file_path: file, limit: 1 }), exec)
  if (read.isError) throw new Error(read.content)
  let toggle = false
  const edit = async () => {
    const [from, to] = toggle ? ['MARK_B', 'MARK_A'] : ['MARK_A', 'MARK_B']
    toggle = !toggle
    const output = await tools.run(
      'edit',
      JSON.stringify({ file_path: file, old_string: from, new_string: to }),
      exec,
    )
    if (output.isError) throw new Error(output.content)
  }
  const measured = await medianOf(EDIT_SAMPLES, () => timed(edit))
  const baseline = await medianOf(EDIT_SAMPLES, () =>
    timed(async () => {
      const text = await readFile(file, 'utf8')
      await writeFile(file, text)
    }),
  )
  return row('edit of a 5 MB file', measured, baseline, 'fs read + write', 3)
}
