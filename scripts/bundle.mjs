// Bundles the command line into dist/bundle/ (what the `dsh` bin runs) as one CommonJS file
// plus a V8 code cache for it, instead of hundreds of small modules: compiling them was most
// of a cold start's cost, and Node 20 caches compiled code only for scripts (vm.Script
// cachedData), not ES modules. better-sqlite3 and @lydell/node-pty (native modules) and pg
// (optional native parts) stay external. How the bin loads it: src/apps/cli/bin.cjs and
// docs/architecture.md; measured in bench/cli.bench.ts, see bench/RESULTS.md.
// Also bundles the web UI's front end into dist/web/ (index.html, app.js, app.css): no CDN at run time.

import { spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Script } from 'node:vm'
import { build } from 'esbuild'

// zod's classic API and core re-export all 60-odd message locales as `z.locales`; dsh uses none
// but the English default (which zod's core imports itself): bundle only `en`, so start-up
// does not load 400 KB of translations. See bench/RESULTS.md (start-up, issue #31).
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /zod[\\/]v4[\\/](classic[\\/]external|core[\\/]index)\.js$/.test(args.importer) ? { path: 'zod-locales', namespace: 'dsh' } : undefined,
    )
    b.onLoad({ filter: /^zod-locales$/, namespace: 'dsh' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js'",
      resolveDir: process.cwd(),
    }))
  },
}

// Packages only a lazy path reaches: undici (an HTTP proxy, web_fetch, MCP over HTTP), chat's
// markdown and code highlighting, the terminal tools' screen, code intelligence, web_fetch's
// HTML parsing and charset sniffing. Each is bundled into its
// own file under dist/bundle/vendor/ and required on first use, instead of into cli.js: V8
// keeps cli.js's whole source resident for the life of every process (lazy functions compile
// from it), so a package no start needs costs memory in every `dsh run` (1.7 MB of 4.1 MB;
// bench/RESULTS.md, "Start-up: a leaner headless turn"). The lists name every specifier
// src/ imports (the build fails on any other). For a CommonJS package cli.js gets back what
// `require(specifier)` returns, as when it was bundled inline; for an ES module (marked,
// encoding-sniffer, htmlparser2) its namespace, so src/ may import only named exports of
// those: a default import would get the namespace. The ACP SDK stays inline: vendored, it
// would carry a second zod.
const VENDORED = {
  undici: ['undici'],
  'highlight.js': ['highlight.js/lib/common'],
  '@xterm/headless': ['@xterm/headless'],
  'vscode-languageserver-protocol': ['vscode-languageserver-protocol/node'],
  marked: ['marked'],
  'encoding-sniffer': ['encoding-sniffer'],
  htmlparser2: ['htmlparser2'],
}
const vendorFile = (pkg) => `vendor/${pkg.replace(/^@/, '').replace(/[/.]/g, '-')}.js`
const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
const vendored = {
  name: 'vendored',
  setup(b) {
    const packages = new RegExp(`^(${Object.keys(VENDORED).map(escaped).join('|')})(/|$)`)
    b.onResolve({ filter: packages }, (args) => {
      const pkg = args.path.match(packages)[1]
      if (!VENDORED[pkg].includes(args.path)) return { errors: [{ text: `${args.path}: add it to VENDORED['${pkg}'] in scripts/bundle.mjs` }] }
      return { path: args.path, namespace: 'dsh-vendored', pluginData: pkg }
    })
    // One line per specifier: the vendor file's export of that specifier, required on first use.
    b.onLoad({ filter: /.*/, namespace: 'dsh-vendored' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`./${vendorFile(args.pluginData)}`)})[${JSON.stringify(args.path)}]`,
      loader: 'js',
    }))
    b.onResolve({ filter: /^\.\/vendor\//, namespace: 'dsh-vendored' }, (args) => ({ path: args.path, external: true }))
  },
}

// Start empty, so the packed tarball carries only this build's files.
rmSync('dist/bundle', { recursive: true, force: true })
// The built-in tools' parameter JSON Schemas, made by zod from the tsc output of the same
// sources and embedded in cli.js (src/core/tool-parameters.ts): the model's first request
// then needs neither their zod schemas nor zod's conversion. Loading the harness loads the
// module of every built-in tool a harness composes.
await import('../dist/src/harness/index.js')
const { declaredParametersTable } = await import('../dist/src/core/tool-parameters.js')
const toolParameters = declaredParametersTable()

const CLI = 'dist/bundle/cli.js'
const cli = await build({
  entryPoints: ['dist/src/apps/cli/main.js'],
  outfile: CLI,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'pg', 'pg-native', '@lydell/node-pty'],
  // V8 drops a script's dynamic-import callback from functions it restores from cachedData
  // (Node 20: "A dynamic import callback was not specified"): leave no import() in the
  // bundle. esbuild then loads the external packages and node: modules with require().
  supported: { 'dynamic-import': false },
  // version.ts, the web assets and yaml.ts find package.json, dist/web and node_modules from
  // their module's URL: the bundle's own file, wherever it is installed.
  define: { 'import.meta.url': '__dshUrl', __DSH_TOOL_PARAMETERS__: JSON.stringify(toolParameters) },
  banner: { js: "var __dshUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [zodEnglishOnly, vendored],
  // No comments or indentation: a smaller, pure-ASCII source reads and decodes much faster
  // (it is read at every start, cache or not); identifiers stay, for stack traces.
  minifyWhitespace: true,
  // Licence comments go to cli.js.LEGAL.txt (one carries a non-ASCII name).
  legalComments: 'external',
  metafile: true,
  logLevel: 'warning',
})
// What went into cli.js, for the test that no vendored package did (test/apps/cli/bin.test.ts).
writeFileSync('dist/bundle-inputs.json', `${JSON.stringify(Object.keys(cli.metafile.outputs[CLI].inputs), null, 1)}\n`)
const dynamic = cli.metafile.outputs[CLI].imports.filter((i) => i.kind === 'dynamic-import')
if (dynamic.length > 0) throw new Error(`${CLI}: import() left in the bundle: ${dynamic.map((i) => i.path).join(', ')}`)
// cli.js holds the CommonJS module as one function expression, so the bin compiles the
// file's bytes unchanged: V8 accepts cachedData only for the exact source it was made from.
const body = readFileSync(CLI, 'utf8').replace(/^#!.*\n/, '')
// The bin reads it as latin1, exact only for ASCII (esbuild escapes other characters in strings).
if (/[^\x00-\x7f]/.test(body)) throw new Error(`${CLI}: not ASCII`)
// Strict, as the ES modules it was built from (esbuild's own "use strict" comes after the banner).
const source = `(function (exports, require, module, __filename, __dirname) {'use strict';\n${body}\n})`
writeFileSync(CLI, source)
// The code cache: first one made right after compiling (the top level only), then, when a
// training run of `dsh demo` succeeds, the one V8 holds after that turn
// (scripts/train-code-cache.cjs). Valid only for this Node/V8 and flags; elsewhere V8
// rejects it and the bin compiles without it.
writeFileSync(`${CLI}.cache`, new Script(source, { filename: resolve(CLI) }).createCachedData())
// `dsh --version` alone is answered by the bin from this small file, without loading cli.js.
await build({
  entryPoints: ['dist/src/core/version.js'],
  outfile: 'dist/bundle/version.js',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  define: { 'import.meta.url': '__dshUrl', __DSH_TOOL_PARAMETERS__: JSON.stringify(toolParameters) },
  banner: { js: "var __dshUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
})
// In a `"type": "module"` package the bin must say it is CommonJS.
writeFileSync('dist/bundle/package.json', '{ "type": "commonjs" }\n')
copyFileSync('src/apps/cli/bin.cjs', 'dist/bundle/main.js')
copyFileSync('src/apps/cli/headless-v8.cjs', 'dist/bundle/headless-v8.cjs')
chmodSync('dist/bundle/main.js', 0o755)
// The vendor files: each exports, per specifier, a getter that requires it (so a specifier is
// evaluated only when asked for). Node loads them as ordinary CommonJS files, without a cache.
for (const [pkg, specifiers] of Object.entries(VENDORED)) {
  const getters = specifiers.map((spec) => `  get ${JSON.stringify(spec)}() { return require(${JSON.stringify(spec)}) },`)
  await build({
    stdin: { contents: `module.exports = {\n${getters.join('\n')}\n}\n`, resolveDir: process.cwd(), sourcefile: `${pkg} (vendored)` },
    outfile: join('dist/bundle', vendorFile(pkg)),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minifyWhitespace: true,
    logLevel: 'warning',
  })
}
// The training runs, once the bundle folder is complete: `dsh demo`, then `dsh run` with the
// demo's cache loaded (scripts/train-code-cache.cjs), so the cache holds both commands' code.
const trainingTmp = mkdtempSync(join(tmpdir(), 'dsh-build-'))
try {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(DSH_|DEEPSEEK_)/.test(key)))
  const train = (command) =>
    spawnSync(process.execPath, ['scripts/train-code-cache.cjs', command], {
      env: { ...env, TMPDIR: trainingTmp, NO_COLOR: '1' },
      stdio: 'ignore',
      timeout: 120_000,
    }).status === 0
  if (!train('demo')) {
    console.warn('bundle: the training run of `dsh demo` failed; the code cache holds the top level only')
  } else if (!train('run')) {
    console.warn('bundle: the training run of `dsh run` failed; the code cache holds `dsh demo` only')
  }
} finally {
  rmSync(trainingTmp, { recursive: true, force: true })
}

mkdirSync('dist/web', { recursive: true })
await build({
  // main.ts imports app.css, so esbuild writes app.js and app.css.
  entryPoints: { app: 'src/apps/web/client/main.ts' },
  outdir: 'dist/web',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
})
copyFileSync('src/apps/web/client/index.html', 'dist/web/index.html')
