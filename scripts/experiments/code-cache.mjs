// Experiment (bench/RESULTS.md, issue #31): the CLI as one CommonJS file, loaded through
// vm.Script with V8 cachedData. `npm run build && node scripts/experiments/code-cache.mjs`
// writes dist/experiments/code-cache/{main.cjs,dsh.cjs}; `WRITE_CACHE=1 node …/dsh.cjs run hi`
// writes the cache; measure-start.mjs compares it with the ESM bundle. Superseded: the
// shipped build does this in scripts/bundle.mjs (see docs/architecture.md, "How the bin starts").
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
const OUT = resolve('dist/experiments/code-cache')
import { build } from 'esbuild'
const src = readFileSync('dist/src/apps/cli/main.js', 'utf8')
const i = src.indexOf('const code = await main(')
const entry = src.slice(0, i) + 'void (async () => {\n' + src.slice(i) + '\n})()\n'
writeFileSync('dist/src/apps/cli/main-cjs-entry.js', entry)
mkdirSync(OUT, { recursive: true })
await build({
  entryPoints: ['dist/src/apps/cli/main-cjs-entry.js'],
  outfile: `${OUT}/main.cjs`,
  bundle: true, format: 'cjs', platform: 'node', target: 'node20',
  external: ['better-sqlite3', 'pg', 'pg-native'],
  define: { 'import.meta.url': '__dshUrl' },
  // version.ts and the web assets look for package.json and dist/web from dist/bundle/.
  banner: { js: `const __dshUrl = require('node:url').pathToFileURL(${JSON.stringify(resolve('dist/bundle/main.js'))}).href;` },
  logLevel: 'error',
})
// V8 drops a script's dynamic-import callback from functions restored from cachedData
// (Node 20): route the run path's three real import() calls (pg, node:http(s), node:crypto)
// through a function defined outside the cached script instead.
const cjsFile = `${OUT}/main.cjs`
writeFileSync(cjsFile, readFileSync(cjsFile, 'utf8').replace(/\bimport\("(pg|node:[a-z]+)"\)/g, '__dshImport("$1")'))
writeFileSync(`${OUT}/dsh.cjs`, `
const fs = require('node:fs'), vm = require('node:vm'), Module = require('node:module'), path = require('node:path')
globalThis.__dshImport = (s) => import(s)
const file = path.join(__dirname, 'main.cjs')
const cacheFile = file + '.cache'
const source = fs.readFileSync(file, 'utf8').replace(/^#!.*/, '')
let cachedData
if (!process.env.NO_CACHE) try { cachedData = fs.readFileSync(cacheFile) } catch {}
const script = new vm.Script(Module.wrap(source), { filename: file, cachedData })
if (process.env.REPORT_CACHE) process.stderr.write('cache rejected: ' + script.cachedDataRejected + '\\n')
// EARLY_CACHE: what a build could write without running the CLI (only eagerly compiled code).
if (process.env.EARLY_CACHE) { fs.writeFileSync(cacheFile, script.createCachedData()); process.exit(0) }
if (process.env.WRITE_CACHE) process.on('exit', () => fs.writeFileSync(cacheFile, script.createCachedData()))
const mod = { exports: {} }
script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(file), mod, file, __dirname)
`)
