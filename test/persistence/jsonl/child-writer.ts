// Drives writer-child.mjs: a real second process using the built JSONL (or SQLite) backend.

import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, '..', '..', '..')
const distIndex = join(repo, 'dist', 'src', 'persistence', 'index.js')
const script = join(here, 'writer-child.mjs')

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

/** Builds dist/ when it is missing or older than the sources the child uses. */
export function ensureBuilt(): void {
  const sources = Math.max(
    newestMtime(join(repo, 'src', 'persistence')),
    newestMtime(join(repo, 'src', 'session')),
    newestMtime(join(repo, 'src', 'core')),
  )
  if (existsSync(distIndex) && statSync(distIndex).mtimeMs >= sources) return
  try {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: repo, stdio: 'pipe' })
  } catch {
    // Type errors elsewhere in the tree do not stop tsc from emitting; checked below.
  }
  if (!existsSync(distIndex)) throw new Error(`build did not produce ${distIndex}`)
}

const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups']

/**
 * Whether a child can run as `nobody` (file modes apply to it, unlike to root): this process
 * is root, setpriv exists, and `nobody` can read the checkout (the child loads dist/ from it).
 */
export function canRunAsNobody(): boolean {
  if (process.getuid?.() !== 0) return false
  return spawnSync('setpriv', [...NOBODY, 'test', '-r', join(repo, 'package.json')]).status === 0
}

export interface ChildReply {
  ok: boolean
  result?: unknown
  code?: string
  message?: string
}

export class ChildWriter {
  private readonly replies: ((reply: ChildReply) => void)[] = []
  readonly exited: Promise<number | null>

  private constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
  ) {
    this.exited = new Promise((done) => child.once('exit', (code) => done(code)))
  }

  /**
   * Starts a child over `root`; `fileSizeLimitKb` caps the files it may write (ulimit -f);
   * `asNobody` runs it as uid/gid 65534 (needs root and setpriv: see `canRunAsNobody`).
   */
  static async spawn(
    root: string,
    options: { fileSizeLimitKb?: number; backend?: 'jsonl' | 'sqlite'; asNobody?: boolean } = {},
  ): Promise<ChildWriter> {
    const args = [script, distIndex, root, options.backend ?? 'jsonl']
    const child = options.asNobody
      ? spawn('setpriv', [...NOBODY, process.execPath, ...args], { stdio: ['pipe', 'pipe', 'inherit'] })
      : options.fileSizeLimitKb === undefined
        ? spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] })
        : spawn(
            'bash',
            ['-c', `ulimit -f ${options.fileSizeLimitKb} && exec "$0" "$@"`, process.execPath, ...args],
            {
              stdio: ['pipe', 'pipe', 'inherit'],
            },
          )
    const lines = createInterface({ input: child.stdout! })
    const first = await new Promise<{ pid: number }>((resolve, reject) => {
      lines.once('line', (line) => resolve(JSON.parse(line)))
      child.once('exit', (code) => reject(new Error(`child exited early with ${code}`)))
    })
    const writer = new ChildWriter(child, first.pid)
    lines.on('line', (line) => writer.replies.shift()?.(JSON.parse(line)))
    return writer
  }

  call(op: string, args: Record<string, unknown> = {}): Promise<ChildReply> {
    return new Promise((resolve) => {
      this.replies.push(resolve)
      this.child.stdin!.write(`${JSON.stringify({ op, ...args })}\n`)
    })
  }

  /** Calls and expects success. */
  async ok(op: string, args: Record<string, unknown> = {}): Promise<unknown> {
    const reply = await this.call(op, args)
    if (!reply.ok) throw new Error(`child ${op} failed: ${reply.code} ${reply.message}`)
    return reply.result
  }

  async exit(): Promise<void> {
    this.child.stdin!.write(`${JSON.stringify({ op: 'exit' })}\n`)
    await this.exited
  }

  async kill(): Promise<void> {
    this.child.kill('SIGKILL')
    await this.exited
  }
}
