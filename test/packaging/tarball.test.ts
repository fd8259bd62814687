// The published package: `npm pack` carries what a user runs (the bundle, the web front end,
// the docs, README and LICENSE), not sources, tests or fixtures; installed globally into a
// temporary prefix, its `dsh --version` and `dsh demo` work. No network: the dependencies
// come from this checkout's node_modules through a registry on 127.0.0.1
// (test/support/local-registry.ts), with install scripts off since the native modules
// are already built there.

import { spawn, spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt } from '../apps/cli/cli.js'
import { type LocalRegistry, startLocalRegistry } from '../support/local-registry.js'
import { createTempDir, removeTempDir } from '../support/temp-dir.js'

const ROOT = resolve('.')
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version

interface Packed {
  filename: string
  entryCount: number
  unpackedSize: number
  files: { path: string }[]
}

/** npm's environment for the children: no proxy, no user config, a cache of our own. */
function npmEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/proxy|^npm_/i.test(key) || key.startsWith('DSH_') || key.startsWith('DEEPSEEK_')) continue
    env[key] = value
  }
  const userconfig = join(dir, 'npmrc')
  writeFileSync(userconfig, '')
  return {
    ...env,
    NO_COLOR: '1',
    npm_config_userconfig: userconfig,
    npm_config_cache: join(dir, 'npm-cache'),
  }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT, timeout = 240_000) {
  // Async spawn: the registry answering npm lives in this process's event loop.
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text
    })
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout)
    child.on('error', fail)
    child.on('close', (code) => {
      clearTimeout(timer)
      done({ code, stdout, stderr })
    })
  })
}

describe('the packed tarball', () => {
  let dir: string
  let packed: Packed
  let registry: LocalRegistry | undefined

  beforeAll(() => {
    assertBuilt()
    dir = createTempDir('dsh-pack-')
    const result = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
      cwd: ROOT,
      env: npmEnv(dir),
      encoding: 'utf8',
    })
    expect(result.status, result.stderr).toBe(0)
    packed = (JSON.parse(result.stdout) as Packed[])[0]!
  }, 120_000)

  afterAll(async () => {
    await registry?.close()
    if (dir) removeTempDir(dir)
  })

  it('carries the bundle, the web UI, the docs, README and LICENSE, and nothing else', () => {
    const paths = packed.files.map((file) => file.path)
    for (const needed of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/bundle/main.js',
      'dist/web/index.html',
      'dist/web/app.js',
      'docs/configuration.md',
    ]) {
      expect(paths).toContain(needed)
    }
    const stray = paths.filter(
      (path) =>
        !/^(dist\/bundle\/|dist\/web\/|docs\/)/.test(path) &&
        !['package.json', 'README.md', 'LICENSE'].includes(path),
    )
    expect(stray).toEqual([])
    expect(packed.entryCount).toBeLessThan(300)
  })

  it('installs globally into a temporary prefix, offline, and runs dsh --version and dsh demo', async () => {
    registry = await startLocalRegistry(ROOT, join(dir, 'tarballs'))
    const env = npmEnv(dir)
    const prefix = join(dir, 'prefix')
    const install = await run(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--registry',
        registry.url,
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--loglevel',
        'error',
        join(dir, packed.filename),
      ],
      env,
    )
    expect(
      install.code,
      `${install.stdout}\n${install.stderr}\nunknown: ${registry.unknown.join(', ')}`,
    ).toBe(0)
    // No engine warnings for this Node.
    expect(install.stderr).not.toMatch(/EBADENGINE|Unsupported engine/)

    const dsh = join(prefix, 'bin', 'dsh')
    const version = await run(dsh, ['--version'], env, dir)
    expect(version.code, version.stderr).toBe(0)
    expect(version.stdout.trim()).toBe(VERSION)

    const demo = await run(dsh, ['demo'], env, dir, 120_000)
    expect(demo.code, `${demo.stdout}\n${demo.stderr}`).toBe(0)
    expect(demo.stdout).toMatch(/dsh demo — a scripted model over real HTTP/)
    expect(demo.stdout).toMatch(/DSH_SESSION_JSONL=/)
  }, 300_000)

  it('npm ci on this Node warns about no engine: every locked package (dev ones too) allows it', () => {
    const semver = createRequire(join(ROOT, 'package.json'))('semver') as {
      satisfies(version: string, range: string): boolean
    }
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>
    }
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => !entry.optional && !Array.isArray(entry.engines) && entry.engines?.node)
      .filter(
        ([, entry]) => !semver.satisfies(process.versions.node, (entry.engines as { node: string }).node),
      )
      .map(([folder, entry]) => `${folder || 'dsh'}: ${(entry.engines as { node: string }).node}`)
    expect(refusing).toEqual([])
  })
})
