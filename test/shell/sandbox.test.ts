// The bubblewrap sandbox with real bwrap and bash: writes inside and outside the project,
// the hidden harness home (around a project too) and its readable paths, the PID namespace,
// network off, DSH_* vars, cancel, a missing or failing bwrap.

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { Context, type Fiber } from 'cordis'
import { afterEach, describe, expect } from 'vitest'
import { type DshError, isDshError } from '../../src/core/errors.js'
import {
  assertSandboxAvailable,
  bwrapArgs,
  LocalShellExecutor,
  type SandboxPolicy,
  ShellErrorCode,
} from '../../src/shell/index.js'
import { itRequires } from '../support/requires.js'
import { OUTSIDE_TMP, useTempDirs } from '../support/temp-dir.js'
import { thrownBy } from '../support/thrown.js'
import { until } from '../support/until.js'

const it = itRequires(existsSync('/usr/bin/bwrap'), 'bubblewrap (/usr/bin/bwrap)')
const tempDir = useTempDirs()
// The harness home lies outside /tmp, like ~/.dsh: under /tmp the sandbox's private /tmp
// would hide it anyway, and a sandbox that forgot to hide the home would go unnoticed.
const homeDir = useTempDirs('dsh-sandbox-home-', OUTSIDE_TMP)
const fibers: Fiber[] = []
afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
})

async function sandboxed(policy: Partial<SandboxPolicy>) {
  const home = homeDir()
  const project = tempDir()
  const root = new Context()
  const sandbox: SandboxPolicy = { mode: 'workspace-write', network: true, home, ...policy }
  const fiber = root.plugin(LocalShellExecutor, { sandbox })
  fibers.push(fiber)
  await fiber.await()
  const shell = root.get('shell')!
  const run = (command: string, extra: Record<string, unknown> = {}) =>
    shell.run({ command, workdir: project, projectRoot: project, ...extra })
  return { shell, home, project, run }
}

describe('bubblewrap sandbox', () => {
  it('workspace-write: writes inside the project, not outside it', async () => {
    const { project, run } = await sandboxed({})
    const outside = tempDir()
    const inside = await run(`echo in > ${project}/a.txt`)
    expect(inside.exitCode).toBe(0)
    expect(existsSync(join(project, 'a.txt'))).toBe(true)
    const usr = await run('echo x > /usr/dsh-sandbox-probe')
    expect(usr.exitCode).not.toBe(0)
    expect(existsSync('/usr/dsh-sandbox-probe')).toBe(false)
    await run(`echo x > ${outside}/b.txt`)
    expect(existsSync(join(outside, 'b.txt'))).toBe(false)
    expect((await run('echo t > /tmp/private && cat /tmp/private')).stdout.text).toBe('t\n')
  })

  it('a command keeps no capability, also when dsh runs as root: it cannot undo the read-only binds', async () => {
    const { project, run } = await sandboxed({})
    const caps = await run('grep CapEff /proc/self/status')
    expect(caps.stdout.text).toBe('CapEff:\t0000000000000000\n')
    writeFileSync(join(project, 'kept.txt'), 'kept\n')
    // As root with capabilities this remounted / writable (the tests run as root in CI).
    const remount = await run('mount -o remount,rw / && echo REMOUNTED')
    expect(remount.stdout.text).not.toContain('REMOUNTED')
    expect((await run('echo x > /usr/dsh-sandbox-probe')).exitCode).not.toBe(0)
  })

  it('read-only: the project refuses writes, the private tmp takes them', async () => {
    const { project, run } = await sandboxed({ mode: 'read-only' })
    writeFileSync(join(project, 'kept.txt'), 'kept\n')
    expect((await run('cat kept.txt')).stdout.text).toBe('kept\n')
    expect((await run(`echo x > ${project}/new.txt`)).exitCode).not.toBe(0)
    expect(existsSync(join(project, 'new.txt'))).toBe(false)
    expect((await run('echo t > /tmp/x && cat /tmp/x')).exitCode).toBe(0)
  })

  it('hides the harness home except the paths the call may read', async () => {
    const { home, run } = await sandboxed({})
    expect(home.startsWith('/tmp/')).toBe(false)
    writeFileSync(join(home, 'config.yaml'), 'secret: yes\n')
    mkdirSync(join(home, 'skills', 'demo'), { recursive: true })
    writeFileSync(join(home, 'skills', 'demo', 'SKILL.md'), 'skill\n')
    const hidden = await run(`cat ${home}/config.yaml`)
    expect(hidden.exitCode).not.toBe(0)
    expect(hidden.stdout.text).not.toContain('secret')
    const skill = await run(`cat ${home}/skills/demo/SKILL.md`, { readablePaths: [join(home, 'skills')] })
    expect(skill.stdout.text).toBe('skill\n')
    expect((await run(`echo x > ${home}/skills/demo/SKILL.md`)).exitCode).not.toBe(0)
  })

  it('hides the harness home around a project that lies inside it, and binds the project back', async () => {
    const home = homeDir()
    writeFileSync(join(home, 'config.yaml'), 'secret: yes\n')
    const project = join(home, 'work', 'project')
    mkdirSync(project, { recursive: true })
    const root = new Context()
    const fiber = root.plugin(LocalShellExecutor, {
      sandbox: { mode: 'workspace-write', network: true, home },
    })
    fibers.push(fiber)
    await fiber.await()
    const run = (command: string) =>
      root.get('shell')!.run({ command, workdir: project, projectRoot: project })
    const hidden = await run(`cat ${home}/config.yaml`)
    expect(hidden.exitCode).not.toBe(0)
    expect(hidden.stdout.text).not.toContain('secret')
    expect((await run('echo made > inside.txt')).exitCode).toBe(0)
    expect(readFileSync(join(project, 'inside.txt'), 'utf8')).toBe('made\n')
  })

  it('hides a session store kept outside the home: a database file reads empty, a JSONL root is empty', async () => {
    const store = homeDir()
    const file = join(store, 'sessions.db')
    writeFileSync(file, 'secret rows\n')
    writeFileSync(`${file}-wal`, 'secret wal\n')
    const jsonlRoot = join(store, 'jsonl')
    mkdirSync(jsonlRoot)
    writeFileSync(join(jsonlRoot, 'a.jsonl'), 'secret log\n')
    const { run } = await sandboxed({ store: { file, root: jsonlRoot } })
    const read = await run(`cat ${file} ${file}-wal; ls -A ${jsonlRoot}; echo done`)
    expect(read.stdout.text).toBe('done\n')
    expect(read.exitCode).toBe(0)
    // Hidden, not replaced: the files outside are untouched and writes inside go nowhere.
    expect((await run(`echo x > ${file}`)).exitCode).not.toBe(0)
    expect(readFileSync(file, 'utf8')).toBe('secret rows\n')
  })

  it('runs in a new PID namespace: no process of the harness, no environ of it', async () => {
    const { run } = await sandboxed({})
    process.env.SANDBOX_CANARY_API_TOKEN = 'canary-value-1234'
    try {
      const result = await run(
        'cat /proc/$PPID/environ 2>/dev/null | tr "\\0" "\\n"; for p in /proc/[0-9]*; do tr "\\0" "\\n" < $p/environ; done 2>/dev/null; echo; ls /proc | grep -cE "^[0-9]+$"',
        { env: {} },
      )
      expect(result.stdout.text).not.toContain('canary-value-1234')
      expect(Number(result.stdout.text.trim().split('\n').at(-1))).toBeLessThan(10)
    } finally {
      delete process.env.SANDBOX_CANARY_API_TOKEN
    }
  })

  it('starts no standby shell: every command is started inside bubblewrap', async () => {
    const { shell, run } = await sandboxed({})
    // A standby waits outside any sandbox for an unsandboxed executor's next call (standby.ts).
    expect((shell as LocalShellExecutor).standby).toBeUndefined()
    for (let i = 0; i < 2; i++) expect(Number((await run('echo $$')).stdout.text)).toBeLessThan(10)
  })

  it('network off refuses a connect to a loopback server; on allows it', async () => {
    const server = createServer((socket) => {
      socket.on('error', () => {}) // the shell closes without reading: a reset is expected
      socket.end('hi\n')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    try {
      const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`
      const off = await (await sandboxed({ network: false })).run(connect)
      expect(off.exitCode).not.toBe(0)
      expect(off.stdout.text).not.toContain('connected')
      const on = await (await sandboxed({ network: true })).run(connect)
      expect(on.stdout.text).toContain('connected')
    } finally {
      server.close()
    }
  })

  it('passes the DSH_* snapshot to the command', async () => {
    const { run } = await sandboxed({})
    const result = await run('echo "$DSH_SESSION_ID"', { dshEnv: { DSH_SESSION_ID: 'sess-1' } })
    expect(result.stdout.text).toBe('sess-1\n')
  })

  it('cancel and job kill stop the sandboxed processes', async () => {
    const { shell, run } = await sandboxed({})
    const token = `3${Date.now() % 1000}.5`
    /** The pids of this test's `sleep <token…>` processes, seen from outside the sandbox. */
    const sleeping = (arg: string) =>
      readdirSync('/proc').filter((pid) => {
        try {
          return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${arg}\0`
        } catch {
          return false // the process ended while we looked
        }
      })
    const controller = new AbortController()
    const pending = run(`sleep ${token}`, { signal: controller.signal })
    await until(() => sleeping(token).length > 0, 15_000, 'the sandboxed sleep to start')
    controller.abort()
    const result = await pending
    expect(result.killed).toBe(true)
    await until(() => sleeping(token).length === 0, 15_000, 'the cancelled sleep to go')
    const job = shell.start({ command: `sleep ${token}1`, workdir: '/', projectRoot: '/tmp' })
    await until(() => sleeping(`${token}1`).length > 0, 15_000, 'the job sleep to start')
    await job.kill()
    await until(() => sleeping(`${token}1`).length === 0, 15_000, 'the killed job sleep to go')
  })

  it('starts a new session unless told not to (a program in its own terminal keeps it as controlling one)', () => {
    const policy: SandboxPolicy = { mode: 'read-only', network: true, home: homeDir() }
    const paths = { workdir: '/', projectRoot: '/srv', readable: [] }
    expect(bwrapArgs(policy, paths).slice(0, 3)).toEqual([
      '--die-with-parent',
      '--new-session',
      '--unshare-pid',
    ])
    expect(bwrapArgs(policy, paths, [], { newSession: false }).slice(0, 2)).toEqual([
      '--die-with-parent',
      '--unshare-pid',
    ])
  })

  it('builds the whole argument list of a workspace-write call without network, in order', () => {
    const home = homeDir()
    const policy: SandboxPolicy = { mode: 'workspace-write', network: false, home }
    const paths = { workdir: '/srv/p/sub', projectRoot: '/srv/p', readable: [] }
    expect(bwrapArgs(policy, paths)).toEqual([
      '--die-with-parent',
      '--new-session',
      '--unshare-pid',
      '--cap-drop',
      'ALL',
      '--unshare-net',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      '--bind',
      '/srv/p',
      '/srv/p',
      // A hidden folder beside the project is covered after the project is bound.
      '--tmpfs',
      home,
      '--chdir',
      '/srv/p/sub',
    ])
  })

  it('fails closed with one line when bwrap cannot build a namespace', async () => {
    // A program that exists but fails the probe, as bwrap does where user namespaces are off.
    const { run } = await sandboxed({ bwrapPath: '/bin/false' })
    let error: unknown
    try {
      await run('echo never')
    } catch (caught) {
      error = caught
    }
    expect(isDshError(error) && error.code).toBe(ShellErrorCode.SandboxUnavailable)
    expect((error as Error).message).toBe(
      'sandbox: /bin/false cannot run here (exit 1; are user namespaces disabled?)',
    )
  })

  it('fails closed with one line when bwrap is missing', async () => {
    const { run } = await sandboxed({ bwrapPath: '/nonexistent/bwrap' })
    let error: unknown
    try {
      await run('echo never')
    } catch (caught) {
      error = caught
    }
    expect(isDshError(error) && error.code).toBe(ShellErrorCode.SandboxUnavailable)
    expect((error as Error).message).toBe(
      'sandbox: bubblewrap not found at /nonexistent/bwrap (install the bubblewrap package, set sandboxBwrapPath, or use sandbox: off)',
    )
    expect((error as DshError).userFacing).toBe(true)
  })

  it('names the first line of what a failed probe printed, or the reason it could not start', () => {
    const folder = tempDir()
    // A bwrap that prints its complaint over several lines, padded, as bwrap may.
    const talkative = join(folder, 'bwrap-talks')
    writeFileSync(talkative, "#!/bin/sh\nprintf '\\n  no namespace here\\nsecond line\\n' >&2\nexit 3\n", {
      mode: 0o755,
    })
    const failure = thrownBy(() => assertSandboxAvailable(talkative)) as DshError
    expect(failure.code).toBe(ShellErrorCode.SandboxUnavailable)
    expect(failure.message).toBe(
      `sandbox: ${talkative} cannot run here (no namespace here; are user namespaces disabled?)`,
    )
    expect(failure.userFacing).toBe(true)
    // A file that exists but cannot be run: the spawn error is the reason.
    const inert = join(folder, 'bwrap-inert')
    writeFileSync(inert, '', { mode: 0o644 })
    expect((thrownBy(() => assertSandboxAvailable(inert)) as DshError).message).toBe(
      `sandbox: ${inert} cannot run here (spawnSync ${inert} EACCES; are user namespaces disabled?)`,
    )
  })
})

describe('bubblewrap sandbox: the harness home around the project and the readable paths', () => {
  it('read-only: a project inside the hidden home is bound back, read-only', async () => {
    const home = homeDir()
    writeFileSync(join(home, 'config.yaml'), 'secret: yes\n')
    const project = join(home, 'work', 'project')
    mkdirSync(project, { recursive: true })
    writeFileSync(join(project, 'kept.txt'), 'kept\n')
    const root = new Context()
    const fiber = root.plugin(LocalShellExecutor, { sandbox: { mode: 'read-only', network: true, home } })
    fibers.push(fiber)
    await fiber.await()
    const run = (command: string) =>
      root.get('shell')!.run({ command, workdir: project, projectRoot: project })
    const read = await run(`cat kept.txt; cat ${home}/config.yaml; echo x 2>/dev/null > new.txt; echo "w=$?"`)
    expect(read.stdout.text).toBe('kept\nw=1\n')
    expect(existsSync(join(project, 'new.txt'))).toBe(false)
  })

  it('a readable path opens only what lies below a hidden root: never the root itself, and a missing one is skipped', async () => {
    // A session store beside the home: each readable path is judged against every hidden root.
    const { home, run } = await sandboxed({ store: { root: homeDir() } })
    writeFileSync(join(home, 'config.yaml'), 'secret: yes\n')
    mkdirSync(join(home, 'skills'))
    writeFileSync(join(home, 'skills', 'SKILL.md'), 'skill\n')
    const result = await run(`cat ${home}/config.yaml; cat ${home}/skills/SKILL.md; echo done`, {
      readablePaths: [home, join(home, 'skills'), join(home, 'commands')],
    })
    expect(result.stdout.text).toBe('skill\ndone\n')
    expect(result.exitCode).toBe(0)
  })
})
