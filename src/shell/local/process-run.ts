// One shell process from spawn to result: its own process group and containment
// (containment.ts), tail-capped output, timeout and abort handling (TERM to everything of
// the call, KILL after a grace period), and no descendant left running once the shell is gone.

import { type ChildProcess, spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import type { Readable } from 'node:stream'
import { DshError, errorMessage } from '../../core/errors.js'
import { ShellErrorCode } from '../errors.js'
import { withoutPtyMasters } from '../pty-masters.js'
import type { ShellSpec } from '../request.js'
import type { SandboxPolicy } from '../sandbox/bwrap.js'
import type { SecretFilter } from '../secrets.js'
import type { CapturedOutput, ShellJobStatus, ShellResult } from '../types.js'
import { buildChildEnv } from './child-env.js'
import type { CallContainment, ContainmentProvider } from './containment.js'
import { bashJoinsItself, checkWorkdir, commandLine, isSandboxed, sourcedPrefix } from './launch.js'
import { OutputCapture } from './output-capture.js'
import { type StandbyShell, type StandbyShells, standbyCanCarry } from './standby.js'

export interface ProcessRunOptions {
  shellPath: string
  maxOutputChars: number
  /** Bytes each stream's spill file holds at most (output-capture.ts). */
  maxSpillBytes?: number
  killGraceMs: number
  /** A fresh private file path for a spilled stream. */
  spillPath: (stream: 'stdout' | 'stderr') => string
  /** Which inherited variables are secrets, kept from the child. */
  secrets: SecretFilter
  /** Wraps the shell in bubblewrap unless absent or `off` (checked available by the executor). */
  sandbox?: SandboxPolicy
  /** Gives each call its cgroup or tracked process set. */
  containment: ContainmentProvider
  /** Shells started ahead of the calls that will take them (standby.ts); none under a sandbox. */
  standby?: StandbyShells
}

/** Tries to forget a finished call this many times, a kill grace period apart. */
const RELEASE_ATTEMPTS = 5

export class ProcessRun {
  readonly pid: number
  readonly startedAt = Date.now()
  readonly done: Promise<ShellResult>
  private readonly child: ChildProcess
  private readonly contained: CallContainment
  private readonly stdout: OutputCapture
  private readonly stderr: OutputCapture
  private state: ShellJobStatus = 'running'
  private timedOut = false
  private killed = false
  private terminating = false
  private finished = false
  private killTimer: NodeJS.Timeout | undefined
  private timeoutTimer: NodeJS.Timeout | undefined
  private drainTimer: NodeJS.Timeout | undefined
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
  private readonly onAbort = () => this.stop('killed')

  /** Spawns the shell. Throws DshError when the workdir is missing or the shell cannot start. */
  constructor(
    readonly spec: ShellSpec,
    private readonly options: ProcessRunOptions,
  ) {
    const { maxOutputChars, maxSpillBytes } = options
    this.stdout = new OutputCapture(maxOutputChars, () => options.spillPath('stdout'), maxSpillBytes)
    this.stderr = new OutputCapture(maxOutputChars, () => options.spillPath('stderr'), maxSpillBytes)
    const call = { command: spec.command, sessionId: spec.dshEnv.DSH_SESSION_ID }
    const env = buildChildEnv(process.env, spec.env, spec.dshEnv, options.secrets)
    const standby = takeStandby(spec, options, env)
    if (standby) {
      this.contained = options.containment.record(standby.contained, call)
      const script = sourcedPrefix(spec.dshEnv) + spec.command
      const command = {
        shell: options.shellPath,
        script,
        workdir: spec.workdir,
        env: { ...env, ...this.contained.env },
      }
      try {
        this.child = standby.run(command)
      } catch (error) {
        this.contained.signal('SIGKILL')
        this.contained.release()
        throw error
      }
    } else {
      this.contained = options.containment.create(call)
      try {
        const [child, release] = spawnShell(spec, options, this.contained, env)
        this.child = child
        // bwrap gone means every process of its PID namespace is gone: the placeholders are free.
        child.once('exit', release)
      } catch (error) {
        this.contained.release()
        throw error
      }
    }
    this.pid = this.child.pid!
    this.contained.attach(this.pid)
    this.done = this.watch()
    if (spec.timeoutMs !== undefined) {
      this.timeoutTimer = setTimeout(() => this.stop('timeout'), spec.timeoutMs)
    }
    if (spec.signal) {
      if (spec.signal.aborted) this.stop('killed')
      else spec.signal.addEventListener('abort', this.onAbort, { once: true })
    }
  }

  get status(): ShellJobStatus {
    return this.state
  }

  output(): { stdout: CapturedOutput; stderr: CapturedOutput } {
    return { stdout: this.stdout.snapshot(), stderr: this.stderr.snapshot() }
  }

  /** Kills everything of the call (TERM now, KILL after the grace period); resolves with the result. */
  stop(reason: 'killed' | 'timeout' = 'killed'): Promise<ShellResult> {
    // Once finished, the group id may belong to someone else: never signal it again.
    if (this.finished) return this.done
    if (this.exit === undefined) {
      if (reason === 'timeout') this.timedOut = true
      else this.killed = true
    }
    this.terminate()
    return this.done
  }

  private terminate(): void {
    if (this.terminating) return
    this.terminating = true
    if (!this.contained.signal('SIGTERM')) return
    this.killTimer = setTimeout(() => this.contained.signal('SIGKILL'), this.options.killGraceMs)
    this.killTimer.unref()
  }

  private watch(): Promise<ShellResult> {
    const { child } = this
    capture(child.stdout!, this.stdout)
    capture(child.stderr!, this.stderr)
    child.on('error', () => {
      // Spawn failures are thrown by the constructor; a later error (a failed kill of an
      // already-gone process) changes nothing about the result.
    })
    if (child.stdin) {
      child.stdin.on('error', () => {
        // EPIPE: the command exited without reading all of its stdin; that is its choice.
      })
      child.stdin.end(this.spec.stdin)
    }
    child.on('exit', (code, signal) => {
      this.exit = { code, signal }
      // Off the result's critical path: the pipes usually close in the same loop turn.
      setImmediate(() => this.afterExit(code, signal))
    })
    return new Promise<ShellResult>((resolve) => {
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        void this.finish(code, signal).then(resolve)
      })
    })
  }

  private afterExit(code: number | null, signal: NodeJS.Signals | null): void {
    // The shell is gone: whatever it left behind (in its group, or escaped from it with
    // setsid or nohup) must not outlive it. Containment never reaches a stranger.
    if (this.contained.alive()) this.terminate()
    if (this.finished) return
    // A descendant that escaped the group may still hold the pipes; do not wait forever.
    this.drainTimer = setTimeout(() => {
      this.child.stdout?.destroy()
      this.child.stderr?.destroy()
      this.child.emit('close', code, signal)
    }, this.options.killGraceMs + 500)
  }

  /** Forgets the call once nothing of it runs; retries while a killed process is still leaving. */
  private release(attempts: number): void {
    if (this.contained.release() || attempts <= 1) return
    setTimeout(() => this.release(attempts - 1), this.options.killGraceMs).unref()
  }

  private async finish(code: number | null, signal: NodeJS.Signals | null): Promise<ShellResult> {
    this.finished = true
    clearTimeout(this.timeoutTimer)
    clearTimeout(this.drainTimer)
    this.spec.signal?.removeEventListener('abort', this.onAbort)
    if (this.killTimer && !this.contained.alive()) clearTimeout(this.killTimer)
    this.release(RELEASE_ATTEMPTS)
    const exit = this.exit ?? { code, signal }
    this.state = this.killed || this.timedOut ? 'killed' : 'exited'
    const [stdout, stderr] = await Promise.all([this.stdout.close(), this.stderr.close()])
    const result: ShellResult = {
      exitCode: exit.code,
      signal: exit.signal,
      timedOut: this.timedOut,
      killed: this.killed,
      stdout,
      stderr,
      durationMs: Date.now() - this.startedAt,
      workdir: this.spec.workdir,
    }
    if (this.spec.timeoutMs !== undefined) result.timeoutMs = this.spec.timeoutMs
    this.options.standby?.schedule()
    return result
  }
}

/** Feeds a stream into its capture, pausing it while the spill file catches up. */
function capture(stream: Readable, output: OutputCapture): void {
  stream.setEncoding('utf8').on('data', (chunk: string) => {
    if (output.push(chunk)) return
    stream.pause()
    output.onDrain(() => stream.resume())
  })
}

/**
 * What to spawn for the shell of `spec`: `program args`, which starts `command` (the shell,
 * or bwrap around it) inside the call's containment, and what to release when it exits.
 */
function containedCommandLine(
  spec: ShellSpec,
  options: ProcessRunOptions,
  contained: CallContainment,
  env: Readonly<Record<string, string>>,
): { command: string; program: string; args: string[]; release: () => void } {
  const script = sourcedPrefix(spec.dshEnv) + spec.command
  if (!isSandboxed(options.sandbox) && bashJoinsItself(options.shellPath, env)) {
    // bash enters the containment itself: one exec fewer than `wrap` for every command.
    const args = ['-c', contained.joinScript(script)]
    return { command: options.shellPath, program: options.shellPath, args, release: () => {} }
  }
  const [command, commandArgs, release] = commandLine(
    spec,
    [options.shellPath, '-c', script],
    options.sandbox,
  )
  const [program, args] = contained.wrap(command, commandArgs)
  return { command, program, args, release }
}

/**
 * The waiting standby shell, when there is one and this call can use it: no sandbox, no
 * stdin, an environment `env -i` can carry. A missing workdir throws the error a direct
 * spawn reports, and the standby stays for the next call.
 */
function takeStandby(
  spec: ShellSpec,
  options: ProcessRunOptions,
  env: Readonly<Record<string, string>>,
): StandbyShell | undefined {
  const { standby } = options
  if (standby === undefined || isSandboxed(options.sandbox) || spec.stdin !== undefined) return undefined
  // Back-to-back calls find none waiting and pay no checks; the one still due is not started
  // (take cancels it), as it would fork while this call runs.
  if (standby.waitingPid === undefined) return standby.take()
  if (!standbyCanCarry(options.shellPath, env)) return undefined
  checkWorkdir(spec.workdir)
  return standby.take()
}

function spawnShell(
  spec: ShellSpec,
  options: ProcessRunOptions,
  contained: CallContainment,
  childEnv: Readonly<Record<string, string>>,
): [ChildProcess, () => void] {
  const env = { ...childEnv, ...contained.env }
  const { command, program, args, release } = containedCommandLine(spec, options, contained, env)
  let child: ChildProcess | undefined
  let failure: unknown
  try {
    // Wrapped, the command is exec'ed by `sh`: check here what spawn would have refused.
    if (program !== command) accessSync(command, constants.X_OK)
    child = spawn(program, args, {
      cwd: spec.workdir,
      env,
      stdio: withoutPtyMasters([spec.stdin !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe']),
      detached: true,
    })
  } catch (error) {
    failure = error
  }
  if (child?.pid !== undefined) return [child, release]
  release()
  child?.on('error', () => {
    // Reported synchronously below; the event repeats what spawn already told us.
  })
  // The usual reason is a missing workdir: name it precisely (checked only on failure,
  // so a successful spawn pays no extra system call).
  checkWorkdir(spec.workdir)
  const reason = failure === undefined ? '' : `: ${errorMessage(failure)}`
  throw new DshError(`cannot start ${command}${reason}`, ShellErrorCode.SpawnFailed, { cause: failure })
}
