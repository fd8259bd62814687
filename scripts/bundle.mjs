// Bundles the command line into dist/bundle/ (what the `dsh` bin runs): one file per
// lazily imported command instead of hundreds of small modules, which is most of a
// cold start's cost. better-sqlite3 (a native module) and pg (optional native parts) stay external.
// Measured in bench/cli.bench.ts; see bench/RESULTS.md.

import { build } from 'esbuild'

await build({
  entryPoints: ['dist/src/apps/cli/main.js'],
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'pg', 'pg-native'],
  // Bundled CommonJS dependencies call require(): give the ES module one.
  banner: { js: "import { createRequire as __dshRequire } from 'node:module'; const require = __dshRequire(import.meta.url);" },
  logLevel: 'warning',
})
