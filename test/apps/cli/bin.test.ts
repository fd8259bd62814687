// The `dsh` bin (dist/bundle/main.js, src/apps/cli/bin.cjs): it runs the bundled command line
// with the V8 code cache written at build time, falls back to compiling without it when the
// cache is missing or rejected, never writes it, and works from a folder whose path has
// spaces and through a symlink, as a global install runs it.

import { spawn, spawnSync } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { delimiter, dirname, join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, CLI, hasStack, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-bin-')
const startWorld = useModelWorlds(makeDir)
const BUNDLE = dirname(CLI)
const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version

beforeAll(assertBuilt)

/** A copy of the installed package (bundle, package.json, node_modules) under a path with spaces. */
function installCopy(): { bin: string; bundle: string } {
  const root = join(makeDir(), 'my tools', 'dsh package')
  const bundle = join(root, 'dist', 'bundle')
  mkdirSync(dirname(bundle), { recursive: true })
  cpSync(BUNDLE, bundle, { recursive: true })
  cpSync('package.json', join(root, 'package.json'))
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'))
  return { bin: join(bundle, 'main.js'), bundle }
}

/**
 * Executes `bin` (the file or a symlink to it) as a shell would, through its `#!/usr/bin/env node`
 * line; async, as the loopback model shares this event loop.
 */
async function run(bin: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  const env = options.env ?? process.env
  const path = `${dirname(process.execPath)}${delimiter}${env.PATH ?? ''}`
  const child = spawn(bin, args, {
    cwd: options.cwd,
    env: { ...env, PATH: path },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text
  })
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text
  })
  const code = await new Promise<number | null>((done) => child.on('close', done))
  return { code, stdout, stderr }
}

/** What the folder holds, with each file's size and modification time. */
function listing(dir: string): string[] {
  return readdirSync(dir).map((name) => {
    const stat = statSync(join(dir, name))
    return `${name} ${stat.size} ${stat.mtimeMs}`
  })
}

describe('the dsh bin', () => {
  it('ships a code cache that this Node accepts for the bundled source, wherever it is installed', () => {
    const { bundle } = installCopy()
    const check = `
      const { readFileSync } = require('node:fs'); const { Script } = require('node:vm')
      const file = ${JSON.stringify(join(bundle, 'cli.js'))}
      const script = new Script(readFileSync(file, 'latin1'), { filename: file, cachedData: readFileSync(file + '.cache') })
      process.stdout.write(String(script.cachedDataRejected))`
    const result = spawnSync(process.execPath, ['-e', check], { encoding: 'utf8' })
    expect(result.stderr).toBe('')
    expect(result.stdout).toBe('false')
  })

  it('runs a turn from a folder whose path has spaces, through a symlinked bin, writing nothing next to itself', async () => {
    const { bin, bundle } = installCopy()
    const link = join(makeDir(), 'bin dir', 'dsh')
    mkdirSync(dirname(link))
    symlinkSync(bin, link)
    const before = listing(bundle)
    expect(await run(link, ['--version'])).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' })
    const world = await startWorld([{ text: 'Hello through the link.' }], { strict: true })
    const result = await run(link, ['run', 'hi'], { env: world.env, cwd: world.project })
    expect(result.stderr).not.toContain('turn ended')
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('Hello through the link.\n')
    expect(listing(bundle)).toEqual(before)
  })

  it('compiles without the cache when it is missing or was written by another V8', async () => {
    const { bin, bundle } = installCopy()
    const cache = join(bundle, 'cli.js.cache')
    writeFileSync(cache, Buffer.from('not a V8 code cache, or one from another Node'))
    const world = await startWorld([{ text: 'one' }, { text: 'two' }], { strict: true })
    const rejected = await run(bin, ['run', 'hi'], { env: world.env, cwd: world.project })
    expect(rejected).toMatchObject({ code: 0, stdout: 'one\n' })
    expect(rejected.stderr).not.toMatch(/code cache|cachedData|rejected|warning/i)
    rmSync(cache)
    const missing = await run(bin, ['run', 'hi'], { env: world.env, cwd: world.project })
    expect(missing).toMatchObject({ code: 0, stdout: 'two\n' })
    expect(readdirSync(bundle)).not.toContain('cli.js.cache')
  })

  it('reports a user mistake in one line with no stack trace', async () => {
    const { bin } = installCopy()
    const result = await run(bin, ['--no-such-flag'])
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(hasStack(result.stderr)).toBe(false)
  })
})
