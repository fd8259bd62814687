// Real language servers for LSP tests: the devDependencies' binaries, config that points
// the presets at them, and a small TypeScript project.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

const BIN = resolve(import.meta.dirname, '../../node_modules/.bin')
export const TSLS = join(BIN, 'typescript-language-server')
export const PYRIGHT = join(BIN, 'pyright-langserver')
export const HAVE_TSLS = existsSync(TSLS)
export const HAVE_PYRIGHT = existsSync(PYRIGHT)

/**
 * `lsp` config for tests: the installed servers, and waits long enough for a busy 2-core
 * machine (a wait ends as soon as the server has published, so they cost nothing when fast).
 */
export function lspTestConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    servers: { typescript: { command: TSLS }, pyright: { command: PYRIGHT } },
    diagnosticsWaitMs: 120_000,
    diagnosticsSettleMs: 1500,
    initializeTimeoutMs: 120_000,
    requestTimeoutMs: 120_000,
    ...extra,
  }
}

/** A small strict TypeScript project: math.ts exports add, main.ts uses it twice. */
export function writeTsProject(dir: string): { math: string; main: string } {
  mkdirSync(join(dir, 'src'), { recursive: true })
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', noEmit: true },
      include: ['src'],
    }),
  )
  writeFileSync(join(dir, 'package.json'), '{"name":"p","type":"module"}\n')
  const math = join(dir, 'src', 'math.ts')
  const main = join(dir, 'src', 'main.ts')
  writeFileSync(
    math,
    '/** Adds two numbers. */\nexport function add(a: number, b: number): number {\n  return a + b\n}\n',
  )
  writeFileSync(
    main,
    "import { add } from './math.js'\n\nexport const three: number = add(1, 2)\nexport const five = add(2, 3)\n",
  )
  return { math, main }
}
