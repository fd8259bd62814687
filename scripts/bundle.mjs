// Bundles the command line into dist/bundle/ (what the `dsh` bin runs): one file per
// lazily imported command instead of hundreds of small modules, which is most of a
// cold start's cost. better-sqlite3 and @lydell/node-pty (native modules) and pg (optional native parts) stay external.
// Measured in bench/cli.bench.ts; see bench/RESULTS.md.
// Also bundles the web UI's front end into dist/web/ (index.html, app.js, app.css): no CDN at run time.

import { copyFileSync, mkdirSync, rmSync } from 'node:fs'
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

// esbuild names chunks by content hash and never removes old ones: start empty, so the
// packed tarball carries only this build's chunks.
rmSync('dist/bundle', { recursive: true, force: true })
await build({
  entryPoints: ['dist/src/apps/cli/main.js'],
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'pg', 'pg-native', '@lydell/node-pty'],
  // Bundled CommonJS dependencies call require(): give the ES module one.
  banner: { js: "import { createRequire as __dshRequire } from 'node:module'; const require = __dshRequire(import.meta.url);" },
  plugins: [zodEnglishOnly],
  logLevel: 'warning',
})

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
