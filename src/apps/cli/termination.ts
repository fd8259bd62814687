// How dsh ends on a signal: SIGINT, SIGTERM and SIGHUP are handled alike — the caller
// cancels its turn, the harness is disposed (running commands and background jobs are
// killed by process group, sessions flushed, writer locks released) — then the process
// exits 128 + the signal number. A repeated signal stops waiting and exits at once.

export const TERMINATION_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
export type TerminationSignal = (typeof TERMINATION_SIGNALS)[number]

/** 128 + the signal number: 130, 143, 129. */
export const SIGNAL_EXIT_CODES: Readonly<Record<TerminationSignal, number>> = {
  SIGINT: 130,
  SIGTERM: 143,
  SIGHUP: 129,
}

export interface Termination {
  /** The first signal received, if any. */
  readonly signal: TerminationSignal | undefined
  /** Its exit code (undefined before any signal). */
  readonly exitCode: number | undefined
  /** Removes the handlers. */
  dispose(): void
}

/**
 * Installs handlers for the termination signals. The first calls `onSignal` (cancel
 * and let the caller clean up); a later one exits at once with the first signal's code
 * (the shell executor still kills every process group on `exit`). `repeatExits: false`
 * leaves repeats to `onSignal` (the chat, where Ctrl-C only interrupts a turn).
 */
export function handleTermination(
  onSignal: (signal: TerminationSignal, exitCode: number) => void,
  options: { signals?: readonly TerminationSignal[]; repeatExits?: boolean } = {},
): Termination {
  let first: TerminationSignal | undefined
  const handlers = (options.signals ?? TERMINATION_SIGNALS).map((signal) => {
    const handler = () => {
      if (first !== undefined && options.repeatExits !== false) process.exit(SIGNAL_EXIT_CODES[first])
      first ??= signal
      onSignal(signal, SIGNAL_EXIT_CODES[signal])
    }
    process.on(signal, handler)
    return [signal, handler] as const
  })
  return {
    get signal() {
      return first
    },
    get exitCode() {
      return first === undefined ? undefined : SIGNAL_EXIT_CODES[first]
    },
    dispose() {
      for (const [signal, handler] of handlers) process.off(signal, handler)
    },
  }
}
