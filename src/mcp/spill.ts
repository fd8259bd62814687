// Long MCP results: the model gets the head and the path of a file holding all of it.
// A simple private folder under the harness home until the shared spill store lands (#14).

import { randomUUID } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The same cap the bash tool keeps per stream. */
export const MAX_RESULT_CHARS = 30_000

/** The text itself when short; otherwise its head, and the whole text written to a file. */
export function spillLongResult(text: string, home: string, sessionId: string | undefined): string {
  if (text.length <= MAX_RESULT_CHARS) return text
  const folder = join(home, 'spill', 'mcp', sessionId ? encodeURIComponent(sessionId) : '_no-session')
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    const file = join(folder, `${randomUUID()}.txt`)
    writeFileSync(file, text, { mode: 0o600 })
    return `${text.slice(0, MAX_RESULT_CHARS)}\n[output truncated; full output: ${file}]`
  } catch (error) {
    return `${text.slice(0, MAX_RESULT_CHARS)}\n[output truncated; the full output could not be saved: ${(error as Error).message}]`
  }
}
