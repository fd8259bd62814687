// Build step, run by scripts/bundle.mjs, in two passes through the same compile as the bin
// (src/apps/cli/bin.cjs). On a clean exit each replaces dist/bundle/cli.js.cache with the code
// cache V8 holds then: it carries the functions the command ran, not only the top level a
// cache made right after compiling has (measured 8–12% less main-thread CPU to the first
// request; bench/RESULTS.md). Never part of the installed package.
// - `node scripts/train-code-cache.cjs demo` runs `dsh demo`: a whole turn against the
//   built-in scripted model over loopback HTTP.
// - `node scripts/train-code-cache.cjs run` then runs `dsh run` (one bash call, then an
//   answer) against a loopback model started here, with the demo's cache loaded: its cache
//   holds both commands' functions. `dsh run`'s own path (its options, its renderer, the
//   headless trust and MCP choices) otherwise compiled lazily at every start (~190 KB of code
//   cache; about 6–8 ms to the first request, bench/RESULTS.md 2026-12-07).
// The training runs under V8's default flags, as the bin checks the cache before it sets its
// headless ones: a cache made under other flags is rejected.
'use strict'
const { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs')
const { createRequire } = require('node:module')
const { tmpdir } = require('node:os')
const { dirname, join, resolve } = require('node:path')
const { pathToFileURL } = require('node:url')
const { Script } = require('node:vm')

const file = resolve('dist/bundle/cli.js')
const cache = `${file}.cache`

/** Compiles cli.js (with the cache so far, if asked), writes the cache V8 holds on a clean exit, runs the CLI. */
function runCli(withCache) {
  let cachedData
  if (withCache) cachedData = readFileSync(cache)
  const script = new Script(readFileSync(file, 'latin1'), { filename: file, cachedData })
  if (withCache && script.cachedDataRejected) throw new Error(`${cache}: rejected; train the demo first`)
  process.on('exit', (code) => {
    if (code === 0) writeFileSync(cache, script.createCachedData())
  })
  const cliModule = { exports: {} }
  script
    .runInThisContext()
    .call(cliModule.exports, cliModule.exports, createRequire(file), cliModule, file, dirname(file))
}

/** `dsh run` as a user runs it headless, against a loopback model in this process. */
async function trainRun() {
  const loopback = pathToFileURL(resolve('dist/src/llm/scripted/loopback-server.js')).href
  const { startLoopbackModel } = await import(loopback)
  const model = await startLoopbackModel([
    { toolCalls: [{ name: 'bash', arguments: { command: 'echo trained' } }] },
    { text: 'done' },
  ])
  const root = mkdtempSync(join(tmpdir(), 'dsh-train-'))
  process.on('exit', () => rmSync(root, { recursive: true, force: true }))
  const home = join(root, 'home')
  const project = join(root, 'project')
  mkdirSync(home)
  mkdirSync(project)
  writeFileSync(join(home, 'config.yaml'), `model:\n  baseUrl: ${model.baseUrl}\n  maxRetries: 0\n`)
  Object.assign(process.env, { DSH_HOME: home, DEEPSEEK_API_KEY: 'training' })
  process.chdir(project)
  process.argv = [process.argv[0], file, 'run', '--permission-mode', 'bypassPermissions', 'train the cache']
  runCli(true)
}

const mode = process.argv[2]
if (mode === 'demo') {
  process.argv = [process.argv[0], file, 'demo']
  runCli(false)
} else if (mode === 'run') {
  trainRun().catch((error) => {
    console.error(error)
    process.exit(1)
  })
} else {
  console.error('usage: node scripts/train-code-cache.cjs demo|run')
  process.exit(2)
}
