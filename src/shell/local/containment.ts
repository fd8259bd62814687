// Containment of one command and everything it starts, so no descendant outlives the
// call: its own cgroup where the system allows it (cgroup.ts), else its process group plus
// the processes marked with the call's variable and their descendants (process-scan.ts).
// Each call is recorded under the home while it runs (running-calls.ts).

import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import {
  cgroupPopulated,
  createExecutorCgroup,
  joinCgroupCommand,
  joinCgroupLine,
  makeCallCgroup,
  removeCgroup,
  removeCgroupSync,
  signalCgroup,
  startCgroupProbe,
} from './cgroup.js'
import { groupAlive, signalOwnGroup } from './process-group.js'
import { callMarkerName, findCallProcesses, signalEach } from './process-scan.js'
import { processStartTicks, writeRunningRecord } from './running-calls.js'

/** What a call's record says of it. */
export interface CallDescription {
  command: string
  sessionId?: string | undefined
}

/** `auto`: a cgroup when possible, else tracking; the others force one (tests). */
export type ContainmentMode = 'auto' | 'cgroup' | 'tracking'

/** One call's processes, from spawn until nothing of them is left. */
export interface CallContainment {
  /** The call's token: its record's name and its marker variable's suffix. */
  readonly token: string
  /** Its cgroup folder, when it has one. */
  readonly cgroup: string | undefined
  /** Variables the command's environment must carry. */
  readonly env: Readonly<Record<string, string>>
  /** The program and arguments that start the command inside the containment. */
  wrap(program: string, args: string[]): [string, string[]]
  /**
   * The script for a bash started directly (not through `wrap`) that enters the
   * containment itself before `script` runs; only where launch.ts's bashJoinsItself holds.
   */
  joinScript(script: string): string
  /** The shell's pid, once spawned (its process group). */
  attach(pid: number): void
  /** Signals everything of the call; false when nothing was left. */
  signal(signal: NodeJS.Signals): boolean
  /** True while anything of the call runs. */
  alive(): boolean
  /** Forgets the call (record, cgroup) when nothing is left; false while something runs. */
  release(): boolean
}

export class ContainmentProvider {
  /** Which kind this executor uses, decided on first use. */
  private chosen: { cgroup: string | undefined } | undefined
  private nextCall = 1
  private readonly prefix = `${process.pid}_${randomBytes(3).toString('hex')}`
  private readonly live = new Set<CallContainment>()
  /** warmUp's probe while it runs: its executor folder, and its settling. */
  private probe: { folder: string; settled: Promise<void> } | undefined
  private disposed = false

  constructor(
    private readonly mode: ContainmentMode,
    /** The harness home, where running calls are recorded; none: not recorded. */
    private readonly home: string | undefined,
  ) {}

  /** `cgroup` or `tracking`: how this executor contains its calls. */
  get kind(): 'cgroup' | 'tracking' {
    return this.executorCgroup() === undefined ? 'tracking' : 'cgroup'
  }

  /**
   * Decides in the background whether calls get a cgroup (startCgroupProbe), so the
   * first call neither waits for a probe nor for the kernel's first join in a while. A
   * call that comes before the probe has settled either waits for it (`ready`) or, when it
   * cannot wait, probes on its own.
   */
  warmUp(): void {
    if (this.chosen !== undefined || this.probe !== undefined || this.disposed || !this.wantsCgroup()) return
    const probe = startCgroupProbe()
    if (probe === undefined) {
      this.chosen = { cgroup: undefined } // no folder can be made: as createExecutorCgroup decides
      return
    }
    const settled = probe.settled.then(
      (cgroup) => {
        this.probe = undefined
        // Decided meanwhile (a call that could not wait), or unloaded: this folder is not used.
        if (this.chosen === undefined && !this.disposed) this.chosen = { cgroup }
        else if (cgroup !== undefined) removeCgroup(cgroup)
      },
      () => {
        // Unexpected: the next call probes on its own, and fails if it cannot.
        this.probe = undefined
      },
    )
    this.probe = { folder: probe.folder, settled }
  }

  /** The probe `warmUp` started, to wait for while it runs; undefined (nothing to wait for) once settled. */
  ready(): Promise<void> | undefined {
    return this.probe?.settled
  }

  private wantsCgroup(): boolean {
    return this.mode !== 'tracking' && process.platform === 'linux'
  }

  private executorCgroup(): string | undefined {
    this.chosen ??= { cgroup: this.wantsCgroup() ? createExecutorCgroup() : undefined }
    if (this.mode === 'cgroup' && this.chosen.cgroup === undefined)
      throw new Error('no writable cgroup v2 here')
    return this.chosen.cgroup
  }

  /** The containment of a new call. Throws when its record or cgroup cannot be made (fail closed). */
  create(call: CallDescription): CallContainment {
    return this.record(this.reserve(), call)
  }

  /**
   * A call's containment before its command is known (a standby shell waits in it,
   * standby.ts): killed and released with the others, recorded under the home only by
   * `record`. Throws when its cgroup cannot be made.
   */
  reserve(): CallContainment {
    const token = `${this.prefix}_${this.nextCall++}`
    const parent = this.executorCgroup()
    const contained = parent
      ? new CgroupContainment(token, join(parent, `call-${token}`))
      : new TrackedContainment(token)
    const live = this.live
    const released = contained.release.bind(contained)
    contained.release = () => {
      if (!released()) return false
      live.delete(contained)
      return true
    }
    live.add(contained)
    return contained
  }

  /**
   * Records the call under the home until it is released (what the next start finds if dsh
   * is killed). Throws when the record cannot be written, after releasing the containment.
   */
  record(contained: CallContainment, call: CallDescription): CallContainment {
    if (this.home === undefined) return contained
    let record: string
    try {
      record = writeRunningRecord(this.home, { token: contained.token, ...call, cgroup: contained.cgroup })
    } catch (error) {
      contained.signal('SIGKILL')
      contained.release()
      throw error
    }
    const released = contained.release.bind(contained)
    contained.release = () => {
      if (!released()) return false
      rmSync(record, { force: true })
      return true
    }
    return contained
  }

  /** SIGKILLs every call not yet released, synchronously (on process exit and unload). */
  killAll(): void {
    for (const call of this.live) call.signal('SIGKILL')
  }

  /**
   * Releases the calls and removes the executor's cgroup once the killed processes have
   * left (blocking up to `waitMs`: on unload and process exit, after `killAll`).
   */
  dispose(waitMs = 500): void {
    this.disposed = true
    const until = Date.now() + waitMs
    // A probe still under way (the process exits): its folder must not stay behind.
    if (this.probe !== undefined) removeCgroupSync(this.probe.folder, until - Date.now())
    const releaseCalls = () => {
      for (const call of this.live) call.release()
      return this.live.size === 0
    }
    const cgroup = this.chosen?.cgroup
    if (cgroup === undefined) releaseCalls()
    // A killed standby whose join the kernel held lands in its call cgroup while that is
    // removed, as a probe can: removeCgroupSync tries again once it has died.
    else removeCgroupSync(cgroup, until - Date.now(), releaseCalls)
  }
}

class CgroupContainment implements CallContainment {
  readonly env: Readonly<Record<string, string>>
  private pid = 0
  private leaderTicks: number | null = null

  constructor(
    readonly token: string,
    readonly cgroup: string,
  ) {
    this.env = { [callMarkerName(token)]: '1' }
    makeCallCgroup(cgroup) // throws when it cannot: the call does not start uncontained
  }

  wrap(program: string, args: string[]): [string, string[]] {
    return joinCgroupCommand(this.cgroup, program, args)
  }

  joinScript(script: string): string {
    return joinCgroupLine(this.cgroup) + script
  }

  attach(pid: number): void {
    this.pid = pid
    this.leaderTicks = processStartTicks(pid)
  }

  signal(signal: NodeJS.Signals): boolean {
    const inGroup = this.pid !== 0 && signalOwnGroup(this.pid, this.leaderTicks, signal)
    return signalCgroup(this.cgroup, signal) || inGroup
  }

  alive(): boolean {
    return cgroupPopulated(this.cgroup)
  }

  release(): boolean {
    // rmdir refuses a cgroup that anything (a zombie too) is still in: no read of cgroup.events first.
    return removeCgroup(this.cgroup)
  }
}

class TrackedContainment implements CallContainment {
  readonly env: Readonly<Record<string, string>>
  readonly cgroup = undefined
  private readonly marker: string
  private pid = 0
  /** The shell's start time: the call's processes cannot be older. */
  private sinceTicks = 0
  /** Once a scan after the shell's exit found nothing, nothing can appear again. */
  private empty = false

  constructor(readonly token: string) {
    this.marker = callMarkerName(token)
    this.env = { [this.marker]: '1' }
  }

  wrap(program: string, args: string[]): [string, string[]] {
    return [program, args]
  }

  joinScript(script: string): string {
    // The marker variable in the environment is all tracking needs.
    return script
  }

  attach(pid: number): void {
    this.pid = pid
    this.sinceTicks = processStartTicks(pid) ?? 0
  }

  private processes(): number[] {
    if (this.empty) return []
    // The group counts only while it has members: until then no one else can take its id.
    const group = this.pid !== 0 && groupAlive(this.pid) ? this.pid : undefined
    const pids = findCallProcesses(this.marker, group, this.sinceTicks)
    // Nothing live is left that could start another process of the call.
    if (pids.length === 0 && this.pid !== 0) this.empty = true
    return pids
  }

  signal(signal: NodeJS.Signals): boolean {
    // The group first: it stops forks in the group while the scan runs.
    const inGroup = this.pid !== 0 && signalOwnGroup(this.pid, this.sinceTicks || null, signal)
    return signalEach(this.processes(), signal) > 0 || inGroup
  }

  alive(): boolean {
    return this.processes().length > 0
  }

  release(): boolean {
    return !this.alive()
  }
}
