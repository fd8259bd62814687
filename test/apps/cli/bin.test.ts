// The `dsh` bin (dist/bundle/main.js, src/apps/cli/bin.cjs): it runs the bundled command line
// with the V8 code cache written at build time, falls back to compiling without it when the
// cache is missing or rejected, never writes it, and works from a folder whose path has
// spaces and through a symlink, as a global install runs it. The packages only lazy paths
// need live in dist/bundle/vendor/, not in cli.js, and load from there when used.

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
import { createRequire } from 'node:module'
import { delimiter, dirname, join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { startForwardProxy } from '../../support/forward-proxy.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { startTestSite } from '../../support/web-site.js'
import { assertBuilt, CLI, hasStack, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-bin-')
const startWorld = useModelWorlds(makeDir)
const BUNDLE = dirname(CLI)
/** The packages scripts/bundle.mjs bundles apart (its VENDORED). */
const VENDORED = [
  'undici',
  'highlight.js',
  '@xterm/headless',
  'vscode-languageserver-protocol',
  'marked',
  'encoding-sniffer',
  'htmlparser2',
]
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

  it('ships a code cache that already holds what a headless `dsh run` turn runs', async () => {
    // The build trains the cache on `dsh demo` and then `dsh run` (scripts/train-code-cache.cjs).
    // A turn that had to compile functions the cache lacks ends with a larger cache: trained on
    // the demo alone, a `dsh run` turn added about 12% (bench/RESULTS.md, 2026-12-07).
    const { bundle } = installCopy()
    const dir = makeDir()
    const probe = join(dir, 'probe.cjs')
    const out = join(dir, 'cache-sizes.json')
    const file = join(bundle, 'cli.js')
    writeFileSync(
      probe,
      `const { readFileSync, writeFileSync } = require('node:fs')
      const { createRequire } = require('node:module')
      const { Script } = require('node:vm')
      const file = ${JSON.stringify(file)}
      const cachedData = readFileSync(file + '.cache')
      const script = new Script(readFileSync(file, 'latin1'), { filename: file, cachedData })
      process.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify({
        rejected: script.cachedDataRejected, shipped: cachedData.length, atExit: script.createCachedData().length })))
      const cliModule = { exports: {} }
      script.runInThisContext().call(cliModule.exports, cliModule.exports, createRequire(file), cliModule, file, ${JSON.stringify(bundle)})`,
    )
    const world = await startWorld(
      [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo called' } }] }, { text: 'done' }],
      { strict: true },
    )
    const args = [probe, 'run', '--permission-mode', 'bypassPermissions', 'call bash']
    const child = spawn(process.execPath, args, { env: world.env, cwd: world.project, stdio: 'ignore' })
    expect(await new Promise((done) => child.on('close', done))).toBe(0)
    const sizes = JSON.parse(readFileSync(out, 'utf8')) as {
      rejected: boolean
      shipped: number
      atExit: number
    }
    expect(sizes.rejected).toBe(false)
    expect(sizes.atExit / sizes.shipped).toBeLessThan(1.01)
  })

  it("loads Node's own modules of a turn before it sets the headless V8 flags", async () => {
    // Node's built-in code cache for its own modules is checked against V8's flags: a module
    // first loaded after headless-v8.cjs sets them compiles from source (about 15 ms in all).
    // The probe notes which modules Node loads from the moment the flags are set.
    const { bin } = installCopy()
    const dir = makeDir()
    const probe = join(dir, 'probe.cjs')
    const out = join(dir, 'after-flags.json')
    writeFileSync(
      probe,
      `const v8 = require('node:v8')
      const set = v8.setFlagsFromString
      let from
      v8.setFlagsFromString = (flags) => { from ??= process.moduleLoadList.length; return set(flags) }
      process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(
        from === undefined ? null : process.moduleLoadList.slice(from).filter((e) => e.startsWith('NativeModule ')).map((e) => e.slice(13)))))`,
    )
    const world = await startWorld(
      [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo called' } }] }, { text: 'done' }],
      { strict: true },
    )
    const env = { ...world.env, NODE_OPTIONS: `--require ${probe}` }
    const args = ['run', '--permission-mode', 'bypassPermissions', 'call bash']
    expect(await run(bin, args, { env, cwd: world.project })).toMatchObject({ code: 0, stdout: 'done\n' })
    const afterFlags = JSON.parse(readFileSync(out, 'utf8')) as string[] | null
    expect(afterFlags).not.toBeNull()
    // What is left: `process` (its module is the process object) and fs.rm's recursive helper.
    expect(afterFlags!.filter((name) => name !== 'process' && name !== 'internal/fs/rimraf')).toEqual([])
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

  it('keeps the vendored packages out of cli.js and gives back what requiring each package gives', async () => {
    const inputs = JSON.parse(readFileSync('dist/bundle-inputs.json', 'utf8')) as string[]
    expect(inputs.some((input) => input.startsWith('dist/src/apps/cli/'))).toBe(true)
    for (const pkg of VENDORED)
      expect(inputs.filter((input) => input.includes(`node_modules/${pkg}/`))).toEqual([])
    const { bundle } = installCopy()
    const fromBundle = createRequire(join(bundle, 'cli.js'))
    const vendor = (file: string, specifier: string) =>
      (fromBundle(`./vendor/${file}.js`) as Record<string, Record<string, unknown>>)[specifier]
    const packages = createRequire(resolve('package.json'))
    const undici = vendor('undici', 'undici')
    expect(Object.keys(undici ?? {}).sort()).toEqual(Object.keys(packages('undici')).sort())
    expect(typeof undici?.EnvHttpProxyAgent).toBe('function')
    const hljs = vendor('highlight-js', 'highlight.js/lib/common') as { listLanguages(): string[] }
    expect(hljs.listLanguages()).toEqual((packages('highlight.js/lib/common') as typeof hljs).listLanguages())
    expect(typeof vendor('xterm-headless', '@xterm/headless')?.Terminal).toBe('function')
    // The ES modules: their namespace, named exports and all.
    for (const [file, pkg] of [
      ['marked', 'marked'],
      ['encoding-sniffer', 'encoding-sniffer'],
      ['htmlparser2', 'htmlparser2'],
    ] as const) {
      const namespace = (await import(pkg)) as Record<string, unknown>
      expect(Object.keys(vendor(file, pkg) ?? {}).sort(), pkg).toEqual(Object.keys(namespace).sort())
    }
    const lsp = vendor('vscode-languageserver-protocol', 'vscode-languageserver-protocol/node')
    expect(Object.keys(lsp ?? {}).sort()).toEqual(
      Object.keys(packages('vscode-languageserver-protocol/node')).sort(),
    )
  })

  it('runs a turn through an HTTP proxy with undici from its vendor file', async () => {
    const { bin } = installCopy()
    const proxy = await startForwardProxy()
    try {
      const world = await startWorld([{ text: 'Through the proxy.' }], { strict: true })
      const env = { ...world.env, HTTP_PROXY: proxy.url, HTTPS_PROXY: '', NO_PROXY: '' }
      const result = await run(bin, ['run', 'hi'], { env, cwd: world.project })
      expect(result).toMatchObject({ code: 0, stdout: 'Through the proxy.\n' })
      expect(proxy.seen.length).toBeGreaterThan(0)
    } finally {
      await proxy.close()
    }
  })

  it('fetches a page with web_fetch, its charset and HTML handled by the vendored packages', async () => {
    const { bin } = installCopy()
    // windows-1252, said only in the page's <meta>: 0xE9 is "é".
    const html = Buffer.concat([
      Buffer.from('<html><head><meta charset="windows-1252"><title>Menu</title></head><body><h1>Caf'),
      Buffer.from([0xe9]),
      Buffer.from('</h1><p>Open <b>daily</b>.</p></body></html>'),
    ])
    const site = await startTestSite({
      '/menu': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' })
        res.end(html)
      },
    })
    try {
      const world = await startWorld(
        [
          { toolCalls: [{ name: 'web_fetch', arguments: { url: `${site.origin}/menu` } }] },
          { text: 'fetched' },
        ],
        { strict: true, config: `web:\n  fetch: http\n  http:\n    allowPrivateHosts: ['127.0.0.1']\n` },
      )
      const args = ['run', '--permission-mode', 'bypassPermissions', 'read the menu']
      const result = await run(bin, args, { env: world.env, cwd: world.project })
      expect(result).toMatchObject({ code: 0, stdout: 'fetched\n' })
      const toolResult = JSON.stringify(world.model.requests.at(-1))
      expect(toolResult).toContain('# Café')
      expect(toolResult).toContain('**daily**')
    } finally {
      await site.close()
    }
  })

  it('runs a headless turn under the lean V8 flags (headless-v8.cjs) unless DSH_V8_TUNING=off', async () => {
    const { bin } = installCopy()
    const dir = makeDir()
    const report = join(dir, 'new-space.txt')
    const preload = join(dir, 'report-new-space.cjs')
    writeFileSync(
      preload,
      `process.on('exit', () => { const s = require('node:v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); require('node:fs').writeFileSync(${JSON.stringify(report)}, String(s.space_size)) })`,
    )
    const steps = Array.from({ length: 8 }, (_, i) => ({
      toolCalls: [{ name: 'bash', arguments: { command: `true # ${i}` } }],
    }))
    const world = await startWorld([...steps, { text: 'done' }, ...steps, { text: 'done' }], { strict: true })
    /** The new space's size in bytes at the end of a turn of eight `true` calls. */
    const newSpaceAfterTurn = async (extra: NodeJS.ProcessEnv) => {
      const env = { ...world.env, NODE_OPTIONS: `--require ${preload}`, ...extra }
      const args = ['run', '--permission-mode', 'bypassPermissions', 'go']
      expect(await run(bin, args, { env, cwd: world.project })).toMatchObject({ code: 0, stdout: 'done\n' })
      return Number(readFileSync(report, 'utf8'))
    }
    // Two semi-spaces of 1 MB; with V8's defaults they grow in such a turn (to 16 MB here).
    expect(await newSpaceAfterTurn({})).toBeLessThanOrEqual(2 * 1024 * 1024)
    expect(await newSpaceAfterTurn({ DSH_V8_TUNING: 'off' })).toBeGreaterThan(2 * 1024 * 1024)
  })

  it("offers the model the unbundled build's tools: the JSON Schemas built into the bundle are zod's", async () => {
    const { bin } = installCopy()
    const world = await startWorld([{ text: 'bundled' }, { text: 'unbundled' }], { strict: true })
    const args = ['run', 'hi']
    expect(await run(bin, args, { env: world.env, cwd: world.project })).toMatchObject({ code: 0 })
    // Not spawnSync: the loopback model answers on this process's event loop.
    const unbundled = spawn(process.execPath, [resolve('dist/src/apps/cli/main.js'), ...args], {
      env: world.env,
      cwd: world.project,
      stdio: 'ignore',
    })
    expect(await new Promise((done) => unbundled.on('close', done))).toBe(0)
    const [fromBundle, fromZod] = world.model.requests.map((request) => request.tools)
    expect(fromBundle?.length).toBeGreaterThan(20)
    expect(fromBundle).toEqual(fromZod)
  })

  it('captures no stack trace in a headless turn unless DSH_DEBUG shows them', async () => {
    const { bin } = installCopy()
    const dir = makeDir()
    const report = join(dir, 'stack-limit.txt')
    const preload = join(dir, 'report-stack-limit.cjs')
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, String(Error.stackTraceLimit)))`,
    )
    const world = await startWorld([{ text: 'one' }, { text: 'two' }, { text: 'three' }], { strict: true })
    const stackLimitOfRun = async (extra: NodeJS.ProcessEnv) => {
      const env = { ...world.env, NODE_OPTIONS: `--require ${preload}`, ...extra }
      expect(await run(bin, ['run', 'hi'], { env, cwd: world.project })).toMatchObject({ code: 0 })
      return Number(readFileSync(report, 'utf8'))
    }
    expect(await stackLimitOfRun({})).toBe(0)
    expect(await stackLimitOfRun({ DSH_DEBUG: '1' })).toBe(10) // V8's default
    expect(await stackLimitOfRun({ DSH_V8_TUNING: 'off' })).toBe(10)
  })

  it('reports a user mistake in one line with no stack trace', async () => {
    const { bin } = installCopy()
    const result = await run(bin, ['--no-such-flag'])
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(hasStack(result.stderr)).toBe(false)
  })
})
