// Long MCP results: the model gets the head and the path of a file holding all of it, in
// the one spill store (`$DSH_HOME/spill/<session>/`). A call without a session (a command,
// a test) has no spill folder; its result is cut and says so.

import type { SpillStore } from '../spill/index.js'

/** The same cap the bash tool keeps per stream. */
export const MAX_RESULT_CHARS = 30_000

/**
 * The text itself when short; otherwise its head, and the whole text in a spill file.
 * `store` is looked up only for a long text: a service lookup costs more than a short call.
 */
export async function spillLongResult(
  text: string,
  store: () => SpillStore | undefined,
  sessionId: string | undefined,
  label: string,
): Promise<string> {
  if (text.length <= MAX_RESULT_CHARS) return text
  const head = text.slice(0, MAX_RESULT_CHARS)
  const spill = store()
  if (!spill || sessionId === undefined) {
    return `${head}\n[output truncated after ${MAX_RESULT_CHARS} of ${text.length} characters; no session to keep the rest]`
  }
  try {
    const path = await spill.write(sessionId, label, text)
    return `${head}\n[output truncated; full output: ${path}]`
  } catch (error) {
    return `${head}\n[output truncated; the full output could not be saved: ${(error as Error).message}]`
  }
}
