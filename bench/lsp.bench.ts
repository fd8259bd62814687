// LSP benchmarks against a bare LSP client (bench/bare-lsp.ts) on the same server in the same
// run: diagnostics after an edit in a 200-file TypeScript project (dsh's afterEdit, learned
// passes included, vs the time the server takes to publish the new error); the first call
// including the server's start (documentSymbol); and the harness's memory with two servers
// running against without (the servers' own memory reported apart).

import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { DEFAULT_LSP_SETTINGS, LspService, resolveServerSpecs } from '../src/lsp/index.js'
import { BareLspClient } from './bare-lsp.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const TSLS = join(ROOT, 'node_modules/.bin/typescript-language-server')
const PYRIGHT = join(ROOT, 'node_modules/.bin/pyright-langserver')
const FILES = 200
const TARGET = 100
const EDIT_ROUNDS = 8
const START_ROUNDS = 3

export default async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-lsp-'))
  try {
    const project = writeProject(dir)
    return [await benchEdit(project), await benchFirstCall(project), benchMemory(project)]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

interface Project {
  root: string
  target: string
  text: string
  broken: string
  python: string
}

/** 200 files in a chain (each calls the one before), a Python file for the second server. */
function writeProject(dir: string): Project {
  mkdirSync(join(dir, 'src'))
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', noEmit: true },
      include: ['src'],
    }),
  )
  writeFileSync(join(dir, 'package.json'), '{"name":"bench","type":"module"}\n')
  const name = (i: number) => `f${String(i).padStart(3, '0')}`
  let text = ''
  for (let i = 0; i < FILES; i++) {
    const body =
      i === 0
        ? 'export function f000(x: number): number {\n  return x\n}\n'
        : `import { ${name(i - 1)} } from './${name(i - 1)}.js'\n\nexport function ${name(i)}(x: number): number {\n  return ${name(i - 1)}(x) + ${i}\n}\n`
    writeFileSync(join(dir, 'src', `${name(i)}.ts`), body)
    if (i === TARGET) text = body
  }
  const python = join(dir, 'app.py')
  writeFileSync(join(dir, 'pyproject.toml'), '[project]\nname = "bench"\nversion = "0"\n')
  writeFileSync(python, 'def twice(x: int) -> int:\n    return x * 2\n')
  return {
    root: dir,
    target: join(dir, 'src', `${name(TARGET)}.ts`),
    text,
    broken: text.replace(`+ ${TARGET}`, `+ 'x${TARGET}'`),
    python,
  }
}

async function service(): Promise<{ ctx: Context; lsp: LspService }> {
  const ctx = new Context()
  const settings = {
    ...DEFAULT_LSP_SETTINGS,
    diagnosticsWaitMs: 60_000,
    initializeTimeoutMs: 120_000,
    requestTimeoutMs: 120_000,
  }
  await ctx
    .plugin(LspService, {
      settings,
      specs: resolveServerSpecs({ typescript: { command: TSLS }, pyright: { command: PYRIGHT } }),
    })
    .await()
  return { ctx, lsp: ctx.lsp }
}

const quiet = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function benchEdit(project: Project): Promise<BenchRow> {
  // The bare client: from didChange to the publish that carries the new error.
  const bare = await BareLspClient.start(TSLS, project.root)
  const bareTimes: number[] = []
  const firstErrorTimes: number[] = []
  try {
    await bare.open(project.target, project.text)
    await bare.settled(project.target, 3000)
    for (let round = 0; round < EDIT_ROUNDS; round++) {
      const started = performance.now()
      await bare.change(project.target, project.broken)
      await bare.until(project.target, (items) => items.some((d) => d.severity === 1))
      firstErrorTimes.push(performance.now() - started)
      // The server is done with the change at its last publish (all passes).
      await bare.settled(project.target, 1500)
      bareTimes.push(bare.lastPublishAt(project.target) - started)
      await bare.change(project.target, project.text)
      await bare.settled(project.target, 1500)
    }
  } finally {
    await bare.stop()
  }
  // dsh: afterEdit until it answers with the new error.
  const { ctx, lsp } = await service()
  const dshTimes: number[] = []
  try {
    await lsp.afterEdit(project.target, project.root, undefined, project.text)
    for (let round = 0; round < EDIT_ROUNDS; round++) {
      const started = performance.now()
      const answer = await lsp.afterEdit(project.target, project.root, project.text, project.broken)
      dshTimes.push(performance.now() - started)
      if (!answer.ok || answer.value.file.length === 0) throw new Error('dsh saw no new error after the edit')
      await lsp.afterEdit(project.target, project.root, project.broken, project.text)
      await quiet(1500)
    }
  } finally {
    await ctx.lsp.manager.stop()
  }
  const measured = median(dshTimes.slice(1))
  const baseline = median(bareTimes.slice(1))
  return {
    name: `diagnostics after an edit, ${FILES}-file TS project (median of ${EDIT_ROUNDS - 1}; the error's own publish: ${median(firstErrorTimes.slice(1)).toFixed(0)} ms)`,
    measured: `${measured.toFixed(0)} ms`,
    baseline: `${baseline.toFixed(0)} ms server's last publish`,
    ratio: measured / baseline,
    target: '≤ 1.3× the server’s own time',
    pass: measured / baseline <= 1.3,
  }
}

async function benchFirstCall(project: Project): Promise<BenchRow> {
  const bareTimes: number[] = []
  const dshTimes: number[] = []
  for (let round = 0; round < START_ROUNDS; round++) {
    let started = performance.now()
    const bare = await BareLspClient.start(TSLS, project.root)
    await bare.open(project.target, project.text)
    await bare.request('textDocument/documentSymbol', { textDocument: { uri: bare.uri(project.target) } })
    bareTimes.push(performance.now() - started)
    await bare.stop()

    const { ctx, lsp } = await service()
    started = performance.now()
    const answer = await lsp.documentSymbols(project.target, project.root)
    dshTimes.push(performance.now() - started)
    if (!answer.ok || answer.value.length === 0) throw new Error('dsh found no symbols')
    await ctx.lsp.manager.stop()
  }
  const measured = median(dshTimes)
  const baseline = median(bareTimes)
  return {
    name: `first lsp_symbols call incl. typescript-language-server start (median of ${START_ROUNDS})`,
    measured: `${measured.toFixed(0)} ms`,
    baseline: `${baseline.toFixed(0)} ms bare client`,
    ratio: measured / baseline,
    target: '≤ 1.2× a bare client',
    pass: measured / baseline <= 1.2,
  }
}

/** In a fresh Node process: a full harness's RSS before and after two servers start. */
function benchMemory(project: Project): BenchRow {
  const script = fileURLToPath(new URL('./lsp-memory.js', import.meta.url))
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', script, project.root, project.target, project.python, TSLS, PYRIGHT],
    {
      encoding: 'utf8',
    },
  )
  const { without, withServers, servers } = JSON.parse(out.trim().split('\n').at(-1)!) as {
    without: number
    withServers: number
    servers: Record<string, number>
  }
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
  const serverText = Object.entries(servers)
    .map(([id, bytes]) => `${id} ${mb(bytes)}`)
    .join(', ')
  return {
    name: `harness RSS with typescript + pyright running (servers apart: ${serverText})`,
    measured: mb(withServers),
    baseline: `${mb(without)} without`,
    ratio: withServers / without,
    target: '≤ 1.1× without',
    pass: withServers / without <= 1.1,
  }
}
