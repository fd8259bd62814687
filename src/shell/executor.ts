// The executor seam (`ctx.shell`): runs `bash -c` commands in the foreground and in the
// background. Providers (local, sandboxed, remote) extend ShellExecutor.

import { type Context, Service, type Tracker } from 'cordis'
import { DshError } from '../core/errors.js'
import { ShellErrorCode } from './errors.js'
import type { ShellJobHandle, ShellLaunch, ShellRequest, ShellResult, ShellStartRequest } from './types.js'

export abstract class ShellExecutor extends Service {
  constructor(ctx: Context) {
    super(ctx, 'shell')
    // Calls through Cordis proxies skip the per-call shadow context: an executor registers
    // nothing on behalf of its callers, and every command pays for the proxy otherwise.
    ;(this as unknown as Record<symbol, Tracker>)[Service.tracker]!.noShadow = true
  }

  /** Absolute path of the shell this executor runs commands with (reported as `DSH_SHELL`). */
  abstract readonly shellPath: string

  /**
   * True when commands run in a sandbox that shows them only the readable paths existing
   * when the call starts: callers create a folder they point the model at first.
   */
  get sandboxed(): boolean {
    return false
  }

  /**
   * Under a sandbox, the paths its commands cannot see (src/shell/sandbox/hidden-paths.ts):
   * the harness home and the session store. Empty without a sandbox.
   */
  get hiddenPaths(): readonly string[] {
    return []
  }

  /**
   * Runs a command to completion. Resolves with a ShellResult for anything that ran —
   * a non-zero exit, a timeout and a kill included. Rejects with a DshError
   * (ShellErrorCode) when nothing could run: a malformed request or a key in the wrong
   * channel (before spawning), a missing workdir, a failed spawn, an unloaded executor.
   */
  abstract run(request: ShellRequest): Promise<ShellResult>

  /**
   * Starts a background run and returns its handle at once; no timeout applies. Throws
   * like `run` when nothing could start. Jobs are killed when the executor unloads.
   */
  abstract start(request: ShellStartRequest): ShellJobHandle

  /** A background job by id (running or finished and still remembered). */
  abstract job(id: string): ShellJobHandle | undefined

  /** Every remembered background job, oldest first. */
  abstract jobs(): ShellJobHandle[]

  /**
   * Prepares `<shell> -c <command>` for a spawner of the caller's own (a pseudo-terminal),
   * under the same environment rules, sandbox and containment as `start`. The caller spawns
   * `file args` in `cwd` with `env`, then calls `attach(pid)`. Throws like `start`. The
   * executor kills what is still running when it unloads. Providers that cannot hand out
   * launches throw SHELL_BAD_REQUEST.
   */
  prepare(_request: ShellStartRequest): ShellLaunch {
    throw new DshError(
      'this shell executor cannot prepare launches for a terminal',
      ShellErrorCode.BadRequest,
    )
  }
}
