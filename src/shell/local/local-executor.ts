// The local provider of `ctx.shell`: runs `bash -c` on this machine, each command in its
// own process group and containment (a cgroup, or tracked descendants), and kills every
// running command and background job, and all they started, when it unloads.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Context } from 'cordis'
import { DshError } from '../../core/errors.js'
import { ShellErrorCode } from '../errors.js'
import { ShellExecutor } from '../executor.js'
import { defaultBashPath } from '../find-shell.js'
import { resolveShellRequest } from '../request.js'
import { assertSandboxAvailable, type SandboxPolicy } from '../sandbox/bwrap.js'
import { harnessHiddenPaths } from '../sandbox/hidden-paths.js'
import { createSecretFilter, type SecretPolicy } from '../secrets.js'
import type { ShellJobHandle, ShellLaunch, ShellRequest, ShellResult, ShellStartRequest } from '../types.js'
import { type ContainmentMode, ContainmentProvider } from './containment.js'
import { prepareLaunch } from './launch.js'
import { DEFAULT_MAX_OUTPUT_CHARS } from './output-capture.js'
import { ProcessRun, type ProcessRunOptions } from './process-run.js'
import { StandbyShells } from './standby.js'

export interface LocalShellExecutorConfig {
  /** Absolute path of the shell. Default: `bash` found on PATH, else `/bin/bash`. */
  shell?: string
  /** Characters of each stream kept in the result. Default 30,000. */
  maxOutputChars?: number
  /** Bytes of each stream its full-output file holds (the head; the rest is dropped). Default 64 MiB. */
  maxSpillBytes?: number
  /** Time between TERM and KILL when a group is stopped. Default 2,000 ms. */
  killGraceMs?: number
  /** Folder for full-output files. Default: a private (0700) folder under the OS temp dir, removed on unload. */
  outputDir?: string
  /** Finished background jobs remembered for `job()`. Default 50. */
  maxFinishedJobs?: number
  /** Extra secret names to scrub and names to pass anyway (config `secrets`). */
  secrets?: SecretPolicy
  /**
   * Runs every command and job inside bubblewrap (config `sandbox`). Probed once here;
   * when bwrap is missing or cannot run, every run rejects with SHELL_SANDBOX_UNAVAILABLE
   * (never unsandboxed).
   */
  sandbox?: SandboxPolicy
  /** The harness home: running commands are recorded under `<home>/running` (orphan reports after a crash). */
  home?: string
  /** How descendants are contained: `auto` (a cgroup v2 when writable, else tracking). Tests force one. */
  containment?: ContainmentMode
  /**
   * How long after a call the next command's shell is started ahead of time (standby.ts);
   * `false`: never. Default 50 ms. Only in a cgroup, without a sandbox, for bash.
   */
  standbyAfterMs?: number | false
}

export const DEFAULT_KILL_GRACE_MS = 2_000
export const DEFAULT_MAX_FINISHED_JOBS = 50

/** Mutable state kept off the service object: calls through Cordis proxies stay cheap. */
interface ExecutorState {
  closed: boolean
  runs: Set<ProcessRun>
  jobs: Map<string, LocalJobHandle>
  nextJob: number
  nextSpill: number
  outputDir: string | undefined
  ownsOutputDir: boolean
}

export class LocalShellExecutor extends ShellExecutor {
  readonly shellPath: string
  private readonly runOptions: ProcessRunOptions
  private readonly maxFinishedJobs: number
  private readonly state: ExecutorState
  private readonly sandboxError: unknown
  private readonly sandboxMode: SandboxPolicy['mode']
  private readonly hidden: readonly string[]
  /** How this executor's calls are contained. */
  readonly containment: ContainmentProvider
  /** The next command's shell, started ahead of time (none under a sandbox). */
  readonly standby: StandbyShells | undefined

  override get sandboxed(): boolean {
    return this.sandboxMode !== 'off'
  }

  override get hiddenPaths(): readonly string[] {
    return this.hidden
  }

  constructor(ctx: Context, config: LocalShellExecutorConfig = {}) {
    super(ctx)
    this.shellPath = config.shell ?? defaultBashPath()
    this.maxFinishedJobs = config.maxFinishedJobs ?? DEFAULT_MAX_FINISHED_JOBS
    const state: ExecutorState = {
      closed: false,
      runs: new Set(),
      jobs: new Map(),
      nextJob: 1,
      nextSpill: 1,
      outputDir: config.outputDir && resolve(config.outputDir),
      ownsOutputDir: config.outputDir === undefined,
    }
    this.state = state
    this.sandboxMode = config.sandbox?.mode ?? 'off'
    this.hidden =
      config.sandbox && config.sandbox.mode !== 'off'
        ? harnessHiddenPaths(config.sandbox.home, config.sandbox.store)
        : []
    if (config.sandbox && config.sandbox.mode !== 'off') {
      try {
        assertSandboxAvailable(config.sandbox.bwrapPath)
      } catch (error) {
        this.sandboxError = error // thrown by every spawn: fail closed
      }
    }
    const containment = new ContainmentProvider(config.containment ?? 'auto', config.home)
    this.containment = containment
    const standby =
      this.sandboxMode === 'off' && config.standbyAfterMs !== false
        ? new StandbyShells(containment, this.shellPath, config.standbyAfterMs)
        : undefined
    this.standby = standby
    this.runOptions = {
      containment,
      ...(standby ? { standby } : {}),
      shellPath: this.shellPath,
      maxOutputChars: config.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
      ...(config.maxSpillBytes !== undefined ? { maxSpillBytes: config.maxSpillBytes } : {}),
      killGraceMs: config.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      secrets: createSecretFilter(config.secrets),
      ...(config.sandbox && config.sandbox.mode !== 'off' ? { sandbox: config.sandbox } : {}),
      spillPath: (stream) => {
        state.outputDir ??= mkdtempSync(join(tmpdir(), 'dsh-shell-'))
        return join(state.outputDir, `${state.nextSpill++}-${stream}.txt`) // a fresh folder per executor
      },
    }
    // Probe for a cgroup while the model answers: not on the first call's path (the probe's
    // join can wait 8–18 ms for the kernel), nor before the first request, which a probe at
    // start-up delayed by 2–3 ms (bench/RESULTS.md, 2026-12-07). Once decided, this is a no-op.
    ctx.on('llm/answering', () => containment.warmUp())
    // If the process exits without unloading us, no group may outlive it.
    const killAllNow = () => {
      // Every run's call is in the containment until released: one sweep reaches them all.
      standby?.close() // its folder too
      containment.killAll()
      containment.dispose(200)
    }
    ctx.effect(() => {
      process.on('exit', killAllNow)
      return async () => {
        process.off('exit', killAllNow)
        state.closed = true
        standby?.close()
        await Promise.allSettled([...state.runs].map((run) => run.stop('killed')))
        await containment.ready() // a probe's folder is gone once unloaded
        // A descendant that ignored TERM is still there while its KILL waits: end it now.
        containment.killAll()
        containment.dispose()
        if (state.ownsOutputDir && state.outputDir) rmSync(state.outputDir, { recursive: true, force: true })
      }
    }, 'shell: kill running commands and jobs on unload')
  }

  async run(request: ShellRequest): Promise<ShellResult> {
    const spec = resolveShellRequest(request, false)
    const probing = this.containment.ready()
    if (probing) await probing // only while the first probe runs: no extra tick per call
    const run = this.spawn(spec)
    return run.done
  }

  start(request: ShellStartRequest): ShellJobHandle {
    const run = this.spawn(resolveShellRequest(request, true))
    const { state } = this
    const handle = new LocalJobHandle(`job-${state.nextJob++}`, run)
    state.jobs.set(handle.id, handle)
    void run.done.then(() => this.forgetOldJobs())
    return handle
  }

  override prepare(request: ShellStartRequest): ShellLaunch {
    const spec = resolveShellRequest(request, true)
    if (this.state.closed)
      throw new DshError('the shell executor was unloaded', ShellErrorCode.ExecutorClosed)
    if (this.sandboxError !== undefined) throw this.sandboxError
    const contained = this.runOptions.containment.create({
      command: spec.command,
      sessionId: spec.dshEnv.DSH_SESSION_ID,
    })
    // Until released, the launch is in the containment, which unload and process exit sweep.
    return prepareLaunch(spec, this.shellPath, this.runOptions.secrets, this.runOptions.sandbox, contained)
  }

  job(id: string): ShellJobHandle | undefined {
    return this.state.jobs.get(id)
  }

  jobs(): ShellJobHandle[] {
    return [...this.state.jobs.values()]
  }

  private spawn(spec: ReturnType<typeof resolveShellRequest>): ProcessRun {
    const { state } = this
    if (state.closed) throw new DshError('the shell executor was unloaded', ShellErrorCode.ExecutorClosed)
    if (this.sandboxError !== undefined) throw this.sandboxError
    const options = spec.spillPath ? { ...this.runOptions, spillPath: spec.spillPath } : this.runOptions
    const run = new ProcessRun(spec, options)
    state.runs.add(run)
    void run.done.then(() => state.runs.delete(run))
    return run
  }

  private forgetOldJobs(): void {
    const finished = [...this.state.jobs.values()].filter((job) => job.status !== 'running')
    for (const job of finished.slice(0, Math.max(0, finished.length - this.maxFinishedJobs))) {
      this.state.jobs.delete(job.id)
    }
  }
}

class LocalJobHandle implements ShellJobHandle {
  constructor(
    readonly id: string,
    private readonly run: ProcessRun,
  ) {}

  get pid(): number {
    return this.run.pid
  }
  get command(): string {
    return this.run.spec.command
  }
  get workdir(): string {
    return this.run.spec.workdir
  }
  get startedAt(): number {
    return this.run.startedAt
  }
  get status() {
    return this.run.status
  }
  get done(): Promise<ShellResult> {
    return this.run.done
  }
  output() {
    return this.run.output()
  }
  kill(): Promise<ShellResult> {
    return this.run.stop('killed')
  }
}
