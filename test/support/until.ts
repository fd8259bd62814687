// Waiting for a condition another process or a server brings about.

/** Resolves once `check()` is true; rejects after `timeoutMs`. Polls every 20 ms. */
export async function until(check: () => boolean, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
