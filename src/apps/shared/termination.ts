// How dsh ends on a signal: SIGINT, SIGTERM and SIGHUP are handled alike — the caller
// cancels its turn, the harness is disposed (running commands and background jobs are
// killed by process group, sessions flushed, writer locks released) — then the process
// exits 128 + the signal number. A repeated signal stops waiting and exits at once.
// A reader that closes the pipe under stdout or stderr (`dsh run … | head -1`) counts as SIGPIPE
// when the caller asks for it: the turn ends as on Ctrl-C and the exit code is 141, as a
// shell reports a pipeline member killed by SIGPIPE (Node ignores the signal itself).

export const TERMINATION_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
export type TerminationSignal = (typeof TERMINATION_SIGNALS)[number] | 'SIGPIPE'

/** 128 + the signal number: 130, 143, 129, 141. */
export const SIGNAL_EXIT_CODES: Readonly<Record<TerminationSignal, number>> = {
  SIGINT: 130,
  SIGTERM: 143,
  SIGHUP: 129,
  SIGPIPE: 141,
}

/** Who handles a broken stdout or stderr pipe now; main.ts asks before its default (a quiet exit 0). */
const brokenPipeHandlers: Array<() => void> = []
/** Set once a command took the broken pipe over: every later write fails the same way. */
let brokenPipeClaimed = false

/**
 * Called by main.ts when the reader of stdout or stderr went away (EPIPE; once per failed write). True
 * when a running command took it over (it then ends its turn and chooses the exit code);
 * false to exit quietly.
 */
export function claimBrokenPipe(): boolean {
  if (brokenPipeClaimed) return true
  const handler = brokenPipeHandlers.at(-1)
  if (handler === undefined) return false
  brokenPipeClaimed = true
  handler()
  return true
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
  options: {
    signals?: readonly (typeof TERMINATION_SIGNALS)[number][]
    repeatExits?: boolean
    /** Treat a broken stdout or stderr pipe as SIGPIPE (once: later EPIPEs are the same event). */
    brokenPipe?: boolean
  } = {},
): Termination {
  let first: TerminationSignal | undefined
  const receive = (signal: TerminationSignal) => {
    if (first !== undefined && options.repeatExits !== false) process.exit(SIGNAL_EXIT_CODES[first])
    first ??= signal
    onSignal(signal, SIGNAL_EXIT_CODES[signal])
  }
  const handlers = (options.signals ?? TERMINATION_SIGNALS).map((signal) => {
    const handler = () => receive(signal)
    process.on(signal, handler)
    return [signal, handler] as const
  })
  const onBrokenPipe = () => receive('SIGPIPE')
  if (options.brokenPipe) brokenPipeHandlers.push(onBrokenPipe)
  return {
    get signal() {
      return first
    },
    get exitCode() {
      return first === undefined ? undefined : SIGNAL_EXIT_CODES[first]
    },
    dispose() {
      for (const [signal, handler] of handlers) process.off(signal, handler)
      const index = brokenPipeHandlers.indexOf(onBrokenPipe)
      if (index >= 0) brokenPipeHandlers.splice(index, 1)
    },
  }
}
