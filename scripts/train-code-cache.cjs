// Build step, run by scripts/bundle.mjs: `node scripts/train-code-cache.cjs demo` runs
// `dsh demo` — a whole turn against the built-in scripted model over loopback HTTP — through
// the same compile as the bin (src/apps/cli/bin.cjs), and on a clean exit replaces
// dist/bundle/cli.js.cache with the code cache V8 holds then: it carries the functions a turn
// ran, not only the top level a cache made right after compiling has (measured 8–12% less
// main-thread CPU to the first request; bench/RESULTS.md). Never part of the installed package.
'use strict'
const { readFileSync, writeFileSync } = require('node:fs')
const { createRequire } = require('node:module')
const { dirname, resolve } = require('node:path')
const { Script } = require('node:vm')

const file = resolve('dist/bundle/cli.js')
const script = new Script(readFileSync(file, 'latin1'), { filename: file })
process.on('exit', (code) => {
  if (code === 0) writeFileSync(`${file}.cache`, script.createCachedData())
})
const cliModule = { exports: {} }
script
  .runInThisContext()
  .call(cliModule.exports, cliModule.exports, createRequire(file), cliModule, file, dirname(file))
