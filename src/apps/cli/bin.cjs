#!/usr/bin/env node
// The `dsh` bin (copied to dist/bundle/main.js by scripts/bundle.mjs). It runs the command
// line, bundled as one CommonJS function in cli.js, through vm.Script with the V8 code cache
// the build wrote next to it (cli.js.cache), so Node 20 deserializes compiled code instead
// of compiling it at every start (docs/architecture.md, "How the bin starts").
// Without a usable cache — the file is missing, or another Node/V8 wrote it and V8 rejects
// it — V8 compiles the source as usual. It never writes the cache: the install may be read-only.
'use strict'
const { readFileSync } = require('node:fs')
const { createRequire } = require('node:module')
const { join } = require('node:path')
const { Script } = require('node:vm')

const args = process.argv.slice(2)
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // The fast path of main.ts, without loading the whole command line.
  process.stdout.write(`${require('./version.js').packageVersion()}\n`)
} else {
  runCli()
}

function runCli() {
  const file = join(__dirname, 'cli.js')
  let cachedData
  try {
    cachedData = readFileSync(`${file}.cache`)
  } catch {
    // No cache: compile without it.
  }
  // The build checks that cli.js is ASCII: latin1 decodes it exactly, without UTF-8's checks.
  const script = new Script(readFileSync(file, 'latin1'), { filename: file, cachedData })
  // A headless turn is a short process: lean V8 settings (headless-v8.cjs), set before the
  // command line runs (or the young generation has grown already) but after V8 has checked
  // the cache against the flags it was made under. `run` can only come first: the program
  // itself has no options but --version and --help. It captures no stack trace unless
  // DSH_DEBUG shows them. DSH_V8_TUNING=off keeps V8's defaults (both).
  if (args[0] === 'run' && process.env.DSH_V8_TUNING !== 'off') {
    const headless = require('./headless-v8.cjs')
    headless.useHeadlessV8Flags()
    headless.captureStacksOnlyForDebug(process.env)
  }
  const cliModule = { exports: {} }
  script
    .runInThisContext()
    .call(cliModule.exports, cliModule.exports, createRequire(file), cliModule, file, __dirname)
}
