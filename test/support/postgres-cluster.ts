// A throwaway PostgreSQL server for tests and benchmarks: `initdb` in a temporary
// folder, `postgres` on a free 127.0.0.1 port, run as an unprivileged user when we
// are root (PostgreSQL refuses to run as root). No vitest imports: bench/ uses it too.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface PostgresCluster {
  /** `postgres://dsh@127.0.0.1:<port>/postgres` (trust authentication, no password). */
  readonly url: string
  readonly port: number
  readonly dir: string
  /** The server process (SIGSTOP/SIGKILL it to simulate a stuck or dead database). */
  readonly process: ChildProcess
  /** Stops the server and removes its folder. Idempotent. */
  stop(): Promise<void>
}

export interface ClusterOptions {
  /** Keep fsync on (benchmarks measure durable commits). Default false: tests need speed, not crash safety. */
  durable?: boolean
}

/** The newest installed PostgreSQL server's bin folder, or undefined when none is installed. */
export function findPostgresBin(): string | undefined {
  const fromEnv = process.env.DSH_TEST_PG_BIN
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv
  const base = '/usr/lib/postgresql'
  if (!existsSync(base)) return undefined
  const versions = readdirSync(base)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(base, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(base, versions[0], 'bin')
}

/** Why postgres tests cannot run here, or undefined when they can. Under CI a missing server is a failure. */
export function postgresUnavailable(): string | undefined {
  return findPostgresBin()
    ? undefined
    : 'PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin (apt-get install postgresql)'
}

const SERVICE_USER = 'postgres'

/** Arguments that run a command as the unprivileged service user when we are root. */
function asServiceUser(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args]
  return ['setpriv', ['--reuid', SERVICE_USER, '--regid', SERVICE_USER, '--init-groups', command, ...args]]
}

function serviceUserIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', SERVICE_USER], { encoding: 'utf8' }).trim())
  const gid = Number(execFileSync('id', ['-g', SERVICE_USER], { encoding: 'utf8' }).trim())
  return { uid, gid }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/** Starts a fresh cluster. Throws with the server's own output when it cannot start. */
export async function startPostgresCluster(options: ClusterOptions = {}): Promise<PostgresCluster> {
  const bin = findPostgresBin()
  if (!bin) throw new Error(postgresUnavailable())
  const dir = mkdtempSync(join(tmpdir(), 'dsh-pg-'))
  const data = join(dir, 'data')
  if (process.getuid?.() === 0) {
    const { uid, gid } = serviceUserIds()
    chownSync(dir, uid, gid)
  }
  const [initdb, initArgs] = asServiceUser(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'dsh',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ])
  try {
    execFileSync(initdb, initArgs, { stdio: 'pipe' })
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    const output = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error)
    throw new Error(`initdb failed: ${output}`)
  }

  let lastError = ''
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort()
    const settings = [
      ['listen_addresses', '127.0.0.1'],
      ['port', String(port)],
      ['unix_socket_directories', dir],
      ['max_connections', '200'],
      ['shared_buffers', '64MB'],
      ['fsync', options.durable ? 'on' : 'off'],
      ['synchronous_commit', options.durable ? 'on' : 'off'],
      ['full_page_writes', options.durable ? 'on' : 'off'],
    ]
    const [postgres, args] = asServiceUser(join(bin, 'postgres'), [
      '-D',
      data,
      ...settings.flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ])
    const child = spawn(postgres, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let output = ''
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    const ready = await waitReady(child, () => output)
    if (ready) {
      return cluster(child, port, dir)
    }
    lastError = output
    child.kill('SIGKILL')
  }
  rmSync(dir, { recursive: true, force: true })
  throw new Error(`postgres did not start: ${lastError}`)
}

async function waitReady(child: ChildProcess, output: () => string): Promise<boolean> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (output().includes('ready to accept connections')) return true
    if (child.exitCode !== null || child.signalCode !== null) return false
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return false
}

function cluster(child: ChildProcess, port: number, dir: string): PostgresCluster {
  let stopping: Promise<void> | undefined
  return {
    url: `postgres://dsh@127.0.0.1:${port}/postgres`,
    port,
    dir,
    process: child,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve))
          child.kill('SIGCONT') // a test may have left it stopped
          child.kill('SIGINT') // "fast" shutdown: roll back open transactions, end sessions
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
          await exited
          clearTimeout(timer)
        }
        rmSync(dir, { recursive: true, force: true })
      })()
      return stopping
    },
  }
}
