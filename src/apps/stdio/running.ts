// The one prompt or compaction a `dsh stdio` server runs at a time, and its cancellation.

import { DshError } from '../../core/errors.js'
import { StdioErrorCode } from './errors.js'

/**
 * Holds the running request from the moment it is accepted, before its turn starts (while
 * images are prepared): a `session/cancel` read after it aborts it, also in the same batch.
 */
interface Running {
  settled: Promise<void>
  controller: AbortController
}

export class RunningRequest {
  private current: Running | undefined

  /** True from `start` until the request settles. */
  get active(): boolean {
    return this.current !== undefined
  }

  /** Resolves once the running request settled (at once when none runs); never rejects. */
  settled(): Promise<void> {
    return this.current?.settled ?? Promise.resolve()
  }

  /** Starts `work` with the signal `abort` aborts; a second one while one runs is STDIO_TURN_RUNNING. */
  start<T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.current) {
      throw new DshError(
        `${what} is already running; wait for its answer or cancel it`,
        StdioErrorCode.TurnRunning,
      )
    }
    const controller = new AbortController()
    const response = work(controller.signal)
    const current: Running = {
      controller,
      settled: response.then(
        () => this.clear(current),
        () => this.clear(current),
      ),
    }
    this.current = current
    return response
  }

  abort(): void {
    this.current?.controller.abort()
  }

  private clear(settled: Running): void {
    if (this.current === settled) this.current = undefined
  }
}
