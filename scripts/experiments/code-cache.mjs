// Experiment: the CLI as one CommonJS file, loaded through vm.Script with V8 cachedData.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { build } from 'esbuild'
const src = readFileSync('dist/src/apps/cli/main.js', 'utf8')
const i = src.indexOf('const code = await main(')
const entry = src.slice(0, i) + 'void (async () => {\n' + src.slice(i) + '\n})()\n'
writeFileSync('dist/src/apps/cli/main-cjs-entry.js', entry)
mkdirSync('/tmp/house/exp/out', { recursive: true })
await build({
  entryPoints: ['dist/src/apps/cli/main-cjs-entry.js'],
  outfile: '/tmp/house/exp/out/main.cjs',
  bundle: true, format: 'cjs', platform: 'node', target: 'node20',
  external: ['better-sqlite3', 'pg', 'pg-native'],
  define: { 'import.meta.url': '__dshUrl' },
  banner: { js: "const __dshUrl = require('node:url').pathToFileURL('/work/wt-house/dist/bundle/main.js').href;" },
  logLevel: 'error',
})
writeFileSync('/tmp/house/exp/out/dsh.cjs', `
const fs = require('node:fs'), vm = require('node:vm'), Module = require('node:module'), path = require('node:path')
const file = path.join(__dirname, 'main.cjs')
const cacheFile = file + '.cache'
const source = fs.readFileSync(file, 'utf8').replace(/^#!.*/, '')
let cachedData
if (!process.env.NO_CACHE) try { cachedData = fs.readFileSync(cacheFile) } catch {}
const script = new vm.Script(Module.wrap(source), { filename: file, cachedData, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER })
if (process.env.REPORT_CACHE) process.stderr.write('cache rejected: ' + script.cachedDataRejected + '\\n')
if (process.env.WRITE_CACHE) process.on('exit', () => fs.writeFileSync(cacheFile, script.createCachedData()))
const mod = { exports: {} }
script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(file), mod, file, __dirname)
`)
