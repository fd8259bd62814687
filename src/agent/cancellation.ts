// Cancellation of one turn: links the caller's signal and the agent's cancel() into
// one AbortSignal that the stream and every tool body observe.

export class TurnCancellation {
  private readonly controller = new AbortController()
  private readonly unlink: () => void

  constructor(external?: AbortSignal) {
    if (!external) {
      this.unlink = () => {}
      return
    }
    if (external.aborted) this.controller.abort(external.reason)
    const onAbort = () => this.controller.abort(external.reason)
    external.addEventListener('abort', onAbort, { once: true })
    this.unlink = () => external.removeEventListener('abort', onAbort)
  }

  get signal(): AbortSignal {
    return this.controller.signal
  }

  get cancelled(): boolean {
    return this.controller.signal.aborted
  }

  cancel(reason: string = 'cancelled'): void {
    if (!this.controller.signal.aborted) this.controller.abort(new Error(reason))
  }

  /** Stops following the caller's signal; call when the turn is over. */
  release(): void {
    this.unlink()
  }
}

/** Resolves after `ms`, or rejects early when the signal aborts. */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
