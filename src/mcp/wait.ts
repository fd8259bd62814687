// Waiting that a cancelled turn can cut short.

/** Resolves when `work` settles or `signal` aborts, whichever comes first. */
export function untilAborted(work: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return work.then(() => {})
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
    work.then(done, done)
  })
}
