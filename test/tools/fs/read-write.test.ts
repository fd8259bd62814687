// read and write against real files: encodings, line endings, sizes, binary, missing files,
// permissions, symlinks, paths outside the cwd, and the read-before-write rule.

import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { pngImage } from '../../support/images.js'
import { itRequires } from '../../support/requires.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { useFsRigs } from './support.js'

const REPO = fileURLToPath(new URL('../../..', import.meta.url))
// Dropping to `nobody` needs root and setpriv (util-linux).
const asRoot = itRequires(
  process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0,
  'root and setpriv (to run the tools as nobody)',
)

const rig = useFsRigs()
const tempDir = useTempDirs('dsh-fs-out-')

describe('read', () => {
  it('numbers lines, keeps unicode, and shows CRLF files as plain lines', async () => {
    const { cwd, run } = await rig()
    writeFileSync(join(cwd, 'u.txt'), 'héllo wörld 👋\n日本語\n')
    writeFileSync(join(cwd, 'crlf.txt'), 'one\r\ntwo\r\n')
    const u = await run('read', { file_path: 'u.txt' })
    expect(u.content).toBe('     1\théllo wörld 👋\n     2\t日本語')
    expect(u.isError).toBeUndefined()
    const crlf = await run('read', { file_path: join(cwd, 'crlf.txt') })
    expect(crlf.content).toBe('     1\tone\n     2\ttwo')
  })

  it('handles no final newline, empty files, offset/limit and long lines', async () => {
    const { cwd, run } = await rig()
    writeFileSync(join(cwd, 'nofinal.txt'), 'a\nb')
    writeFileSync(join(cwd, 'empty.txt'), '')
    writeFileSync(join(cwd, 'many.txt'), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'))
    writeFileSync(join(cwd, 'wide.txt'), `${'x'.repeat(5000)}\n`)
    expect((await run('read', { file_path: 'nofinal.txt' })).content).toBe('     1\ta\n     2\tb')
    expect((await run('read', { file_path: 'empty.txt' })).content).toBe('(empty.txt is empty)')
    const page = await run('read', { file_path: 'many.txt', offset: 3, limit: 2 })
    expect(page.content).toBe(
      '     3\tline 3\n     4\tline 4\n[showing lines 3-4 of 10; read on with offset=5]',
    )
    expect((await run('read', { file_path: 'many.txt', offset: 11 })).content).toContain('past the end')
    const wide = await run('read', { file_path: 'wide.txt' })
    expect(wide.content).toContain('[line cut: 5000 characters]')
    expect(wide.content.length).toBeLessThan(2200)
  })

  it('pages a 10 MB file instead of returning all of it', async () => {
    const { cwd, run } = await rig()
    const line = `${'0123456789'.repeat(10)}\n`
    writeFileSync(join(cwd, 'big.txt'), line.repeat(100_000))
    expect(statSync(join(cwd, 'big.txt')).size).toBe(10_100_000)
    const result = await run('read', { file_path: 'big.txt' })
    expect(result.isError).toBeUndefined()
    expect(result.content.length).toBeLessThanOrEqual(110_000)
    expect(result.content).toMatch(/\[showing lines 1-\d+ of 100000; read on with offset=\d+\]$/)
    const tail = await run('read', { file_path: 'big.txt', offset: 99_999 })
    expect(tail.content).toBe(` 99999\t${line.trim()}\n100000\t${line.trim()}`)
  })

  it('refuses binary files and broken images, and describes images by type, dimensions and size', async () => {
    const { cwd, run } = await rig()
    writeFileSync(join(cwd, 'blob.bin'), Buffer.from([1, 2, 0, 3, 4]))
    writeFileSync(
      join(cwd, 'pic.png'),
      Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(2000)]),
    )
    expect(await run('read', { file_path: 'blob.bin' })).toEqual({
      content: 'blob.bin is a binary file (5 bytes); it is not shown as text.',
      isError: true,
    })
    expect(await run('read', { file_path: 'pic.png' })).toEqual({
      content: 'image pic.png: the PNG has a damaged chunk at byte 8',
      isError: true,
    })
    writeFileSync(join(cwd, 'shot.png'), await pngImage(64, 40))
    expect(await run('read', { file_path: 'shot.png' })).toEqual({
      content: `shot.png is a PNG image, 64×40, ${statSync(join(cwd, 'shot.png')).size} B; the model in use does not take images, so it is not shown.`,
    })
  })

  it('reports missing files and folders clearly', async () => {
    const { cwd, run } = await rig()
    mkdirSync(join(cwd, 'sub'))
    expect(await run('read', { file_path: 'nope.txt' })).toEqual({
      content: 'nope.txt does not exist',
      isError: true,
    })
    expect((await run('read', { file_path: 'sub' })).content).toBe('sub is a folder; use ls to list it')
  })

  it('follows symlinks and marks paths outside the working folder', async () => {
    const { cwd, run } = await rig()
    const outside = tempDir()
    writeFileSync(join(outside, 'secret.txt'), 'out\n')
    symlinkSync(join(outside, 'secret.txt'), join(cwd, 'link.txt'))
    expect((await run('read', { file_path: join(outside, 'secret.txt') })).content).toBe(
      '     1\tout (outside the working folder)',
    )
    expect((await run('read', { file_path: 'link.txt' })).content).toBe(
      '     1\tout (outside the working folder)',
    )
  })

  it('records what was read in the session', async () => {
    const { cwd, run, agent } = await rig()
    writeFileSync(join(cwd, 'a.txt'), 'abc\n')
    await run('read', { file_path: 'a.txt' })
    const event = agent.session.events.find((e) => e.type === 'file/read')
    expect(event?.data).toMatchObject({
      path: join(cwd, 'a.txt'),
      size: 4,
      sha256: 'edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb',
    })
  })
})

describe('write', () => {
  it('creates files and missing folders', async () => {
    const { cwd, run } = await rig()
    const result = await run('write', { file_path: 'deep/er/new.txt', content: 'ünï\ncode\n' })
    expect(result.content).toBe('Created deep/er/new.txt (2 lines)')
    expect(result.isError).toBeUndefined()
    expect(readFileSync(join(cwd, 'deep/er/new.txt'), 'utf8')).toBe('ünï\ncode\n')
  })

  it('refuses to overwrite a file it has not read, then allows it after a read', async () => {
    const { cwd, run } = await rig()
    writeFileSync(join(cwd, 'x.txt'), 'old\n')
    const refused = await run('write', { file_path: 'x.txt', content: 'new\n' })
    expect(refused.isError).toBe(true)
    expect(refused.content).toContain('has not been read in this session')
    expect(readFileSync(join(cwd, 'x.txt'), 'utf8')).toBe('old\n')
    await run('read', { file_path: 'x.txt' })
    const ok = await run('write', { file_path: 'x.txt', content: 'new\n' })
    expect(ok.content).toBe('Wrote x.txt\n--- x.txt\n+++ x.txt\n@@ -1,1 +1,1 @@\n-old\n+new')
  })

  it('refuses a write after an external change, and allows it when only the mtime moved', async () => {
    const { cwd, run } = await rig()
    const file = join(cwd, 'x.txt')
    writeFileSync(file, 'v1\n')
    await run('read', { file_path: 'x.txt' })
    writeFileSync(file, 'v2 by someone else\n')
    const refused = await run('write', { file_path: 'x.txt', content: 'mine\n' })
    expect(refused.isError).toBe(true)
    expect(refused.content).toContain('changed on disk since it was last read')
    expect(readFileSync(file, 'utf8')).toBe('v2 by someone else\n')
    await run('read', { file_path: 'x.txt' })
    utimesSync(file, new Date(), new Date(Date.now() + 5000)) // touch: same bytes
    expect((await run('write', { file_path: 'x.txt', content: 'mine\n' })).isError).toBeUndefined()
    expect(readFileSync(file, 'utf8')).toBe('mine\n')
  })

  it('keeps CRLF line endings and the mode of an existing file', async () => {
    const { cwd, run } = await rig()
    const file = join(cwd, 'run.sh')
    writeFileSync(file, 'a\r\nb\r\n')
    chmodSync(file, 0o751)
    await run('read', { file_path: 'run.sh' })
    await run('write', { file_path: 'run.sh', content: 'a\nb\nc\n' })
    expect(readFileSync(file, 'utf8')).toBe('a\r\nb\r\nc\r\n')
    expect(statSync(file).mode & 0o777).toBe(0o751)
  })

  it('a write to a symlink changes its target and keeps the link', async () => {
    const { cwd, run } = await rig()
    writeFileSync(join(cwd, 'target.txt'), 'x\n')
    symlinkSync('target.txt', join(cwd, 'link.txt'))
    await run('read', { file_path: 'link.txt' })
    await run('write', { file_path: 'link.txt', content: 'y\n' })
    expect(readFileSync(join(cwd, 'target.txt'), 'utf8')).toBe('y\n')
    expect(statSync(join(cwd, 'link.txt')).isFile()).toBe(true)
    expect(spawnSync('test', ['-L', join(cwd, 'link.txt')]).status).toBe(0)
  })

  asRoot('reports a permission error as a tool error (run as an unprivileged user)', async () => {
    // Tests run as root, which ignores file modes: run the built tools as `nobody`.
    const folder = tempDir()
    chmodSync(folder, 0o755)
    const locked = join(folder, 'locked')
    mkdirSync(locked, { mode: 0o755 })
    writeFileSync(join(locked, 'ro.txt'), 'ro\n')
    chmodSync(join(locked, 'ro.txt'), 0o644)
    const mine = join(folder, 'mine')
    mkdirSync(mine)
    chownSync(mine, 65534, 65534)
    // What `nobody` runs is bundled from the sources into a folder it can read: the
    // checkout may lie under a folder only its owner can enter (/root, a 0700 mktemp -d).
    const runner = join(folder, 'runner')
    mkdirSync(runner, { mode: 0o755 })
    chmodSync(runner, 0o755)
    const entry = join(runner, 'entry.ts')
    writeFileSync(
      entry,
      `
      import { Context } from 'cordis'
      import { ToolRegistry } from ${JSON.stringify(join(REPO, 'src/tools/index.ts'))}
      import { FsToolsPlugin } from ${JSON.stringify(join(REPO, 'src/tools/fs/index.ts'))}
      const ctx = new Context()
      await ctx.plugin(ToolRegistry).await()
      await ctx.plugin(FsToolsPlugin).await()
      const run = (name, args) => ctx.tools.run(name, JSON.stringify(args), { callId: 'c', signal: new AbortController().signal })
      const out = []
      out.push(await run('read', { file_path: ${JSON.stringify(`${locked}/ro.txt`)} }))
      out.push(await run('write', { file_path: ${JSON.stringify(`${locked}/ro.txt`)}, content: 'x' }))
      out.push(await run('write', { file_path: ${JSON.stringify(`${locked}/new.txt`)}, content: 'x' }))
      out.push(await run('write', { file_path: ${JSON.stringify(`${mine}/ok.txt`)}, content: 'fine' }))
      console.log(JSON.stringify(out))`,
    )
    const bundled = join(runner, 'run.mjs')
    await build({
      entryPoints: [entry],
      outfile: bundled,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      nodePaths: [join(REPO, 'node_modules')],
      external: ['better-sqlite3', 'pg', 'pg-native', 'sharp', '@lydell/node-pty'],
      banner: {
        js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);",
      },
      logLevel: 'error',
    })
    chmodSync(bundled, 0o644)
    const child = spawnSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, bundled],
      { encoding: 'utf8', cwd: runner },
    )
    expect(child.stderr).toBe('')
    const [read, overwrite, create, allowed] = JSON.parse(child.stdout)
    expect(read.content).toBe('     1\tro (outside the working folder)')
    expect(read.isError).toBeUndefined()
    expect(overwrite).toEqual({ content: `permission denied: ${locked}/ro.txt`, isError: true })
    expect(create).toEqual({ content: `permission denied: ${locked}/new.txt`, isError: true })
    expect(allowed.isError).toBeUndefined()
    expect(readFileSync(join(locked, 'ro.txt'), 'utf8')).toBe('ro\n')
  })
})
