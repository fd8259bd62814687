// A standby shell: the next command's bash, started ahead of time inside the next call's
// cgroup, so a call does not wait for what starting one costs. Node's spawn blocks the event
// loop for the fork (3–5 ms here), and moving a process into a cgroup after a pause — as
// between a model's replies — waits for an RCU grace period in the kernel (15–20 ms here;
// docs/sandbox-and-secrets.md). A standby pays both while dsh waits for the model. A call
// writes its command line to a private file:
//
//   cd -- '<workdir>' || exit 126
//   exec /usr/bin/env -i '<NAME=value>'… '<shell>' -c '<script>'
//
// and the file's path, one line, to the standby's fd 3; the standby sources the file (bash
// reads a pipe one byte at a time, a file in one go). It starts with an empty environment
// (nothing in it can run code before the join), and `env -i` gives the command exactly the
// environment a direct spawn would. Only for bash, for an unsandboxed call without stdin,
// in a cgroup, on Linux.

import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import type { Writable } from 'node:stream'
import { shellQuote } from '../../core/shell-quote.js'
import { withoutPtyMasters } from '../pty-masters.js'
import { joinCgroupLine } from './cgroup.js'
import type { CallContainment, ContainmentProvider } from './containment.js'

const ENV_PROGRAM = '/usr/bin/env'

/** What a standby runs: `shell -c script` in `workdir` with exactly `env`. */
export interface StandbyCommand {
  shell: string
  script: string
  workdir: string
  env: Readonly<Record<string, string>>
}

/** A started standby shell, waiting in its call's containment for its command line. */
export class StandbyShell {
  /** Set when the process has exited: a standby that is gone cannot take a command. */
  exited = false

  constructor(
    readonly child: ChildProcess,
    readonly contained: CallContainment,
    private readonly control: Writable,
    /** Where its command line goes; removed when the standby exits. */
    private readonly file: string,
  ) {}

  /**
   * The standby becomes the command's shell (same pid, process group and cgroup); answers
   * the child process, referenced again. Throws when the command line cannot be written.
   */
  run(command: StandbyCommand): ChildProcess {
    const assignments = Object.entries(command.env).map(([name, value]) => shellQuote(`${name}=${value}`))
    writeFileSync(
      this.file,
      `cd -- ${shellQuote(command.workdir)} || exit 126\n` +
        `exec ${ENV_PROGRAM} -i ${assignments.join(' ')} ${shellQuote(command.shell)} -c ${shellQuote(command.script)}\n`,
      { mode: 0o600 },
    )
    this.control.end(`${this.file}\n`)
    this.child.ref()
    for (const stream of [this.child.stdout, this.child.stderr]) (stream as Socket).ref()
    return this.child
  }
}

/** Whether `env -i` reads every assignment of `env`, and the shell as the program, as one word each. */
export function standbyCanCarry(shell: string, env: Readonly<Record<string, string>>): boolean {
  if (shell.includes('=')) return false
  for (const name of Object.keys(env)) if (name === '' || name.startsWith('-')) return false
  return true
}

/**
 * How long after a call the next standby starts. Calls that follow each other sooner
 * (scripted tools, a model that answers at once) spawn their own shells: joining is cheap
 * right after another join, and a standby's fork would delay them. After a longer pause,
 * as while a model thinks, the standby is ready.
 */
export const STANDBY_AFTER_MS = 50

/** Keeps one standby shell ready for an executor's next call. */
export class StandbyShells {
  private waiting: StandbyShell | undefined
  private timer: NodeJS.Timeout | undefined
  private closed = false
  private readonly usable: boolean
  /** A private folder (0700) for the command lines, made at the first standby. */
  private folder: string | undefined

  constructor(
    private readonly containment: ContainmentProvider,
    private readonly shellPath: string,
    private readonly afterMs = STANDBY_AFTER_MS,
  ) {
    // The standby's own script is bash.
    this.usable = process.platform === 'linux' && basename(shellPath) === 'bash' && existsSync(ENV_PROGRAM)
  }

  /** The pid of the standby that waits for the next call, if one does. */
  get waitingPid(): number | undefined {
    return this.waiting?.exited === false ? this.waiting.child.pid : undefined
  }

  /** Whether a standby's start is scheduled (a call that comes first cancels it). */
  get due(): boolean {
    return this.timer !== undefined
  }

  /** The waiting standby, if it is still alive; the caller owns it from now on. A start still due is cancelled. */
  take(): StandbyShell | undefined {
    clearTimeout(this.timer)
    this.timer = undefined
    const standby = this.waiting
    this.waiting = undefined
    return standby?.exited ? undefined : standby
  }

  /** Starts the next standby `afterMs` from now unless another call comes first. */
  schedule(): void {
    if (this.closed || !this.usable || this.waiting !== undefined) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.refill()
    }, this.afterMs)
    this.timer.unref()
  }

  /**
   * Starts the next standby now unless one waits (or containment is not a cgroup). Never throws:
   * without a standby the next call spawns its shell itself.
   */
  refill(): void {
    if (this.closed || !this.usable || this.waiting !== undefined) return
    let contained: CallContainment
    try {
      if (this.containment.kind !== 'cgroup') return
      this.folder ??= mkdtempSync(join(tmpdir(), 'dsh-standby-'))
      // A path that `read` takes as one line.
      if (this.folder.includes('\n')) return
      contained = this.containment.reserve()
    } catch {
      // No cgroup or folder for it now: the next call makes its own (and reports why if it cannot).
      return
    }
    const script = `${joinCgroupLine(contained.cgroup!)}IFS= read -r dsh_file <&3 || exit 125; exec 3<&-; . "$dsh_file"`
    let child: ChildProcess
    try {
      child = spawn(this.shellPath, ['-c', script], {
        cwd: '/',
        env: {},
        stdio: withoutPtyMasters(['ignore', 'pipe', 'pipe', 'pipe']),
        detached: true,
      })
    } catch {
      contained.release()
      return
    }
    child.on('error', () => {
      // A failed spawn leaves no pid (checked below); later errors change nothing.
    })
    if (child.pid === undefined) {
      contained.release()
      return
    }
    contained.attach(child.pid)
    const control = child.stdio[3] as Writable
    control.on('error', () => {
      // EPIPE: the standby is gone; its exit is what the call reports.
    })
    const file = join(this.folder, `${contained.token}.sh`)
    const standby = new StandbyShell(child, contained, control, file)
    child.once('exit', () => {
      standby.exited = true
      rmSync(file, { force: true })
      if (this.waiting !== standby) return
      // Gone before any call took it (killed, or its join refused): forget it.
      this.waiting = undefined
      contained.release()
    })
    // A waiting standby must not keep the process alive.
    child.unref()
    for (const stream of [child.stdout, child.stderr, control]) (stream as unknown as Socket).unref()
    this.waiting = standby
  }

  /** No more standbys. The waiting one is killed with the executor's other calls. */
  close(): void {
    this.closed = true
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.folder !== undefined) rmSync(this.folder, { recursive: true, force: true })
  }
}
