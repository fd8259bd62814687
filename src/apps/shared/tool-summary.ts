// What a finished tool call looks like in the chat: the first lines of its output, or —
// when it failed — the exit code (or timeout/signal) and the first lines of stderr.
// Reads the bash tool's result text (see src/tools/bash/render.ts for its shape).

export interface ToolSummary {
  failed: boolean
  /** `exit 2`, `timed out after 120000ms`, `killed by signal: SIGKILL`, or undefined. */
  status?: string
  /** Lines to show (stderr first when the call failed). */
  lines: string[]
  /** Lines of output not shown. */
  hidden: number
}

const MARKER = /^\[(exit code: (-?\d+)|timed out after \d+ms|killed by signal: \S+|cancelled)\]$/

/** Summarizes a tool result in at most `maxLines` lines. */
export function summarizeToolResult(content: string, isError: boolean, maxLines: number): ToolSummary {
  const all = content.split('\n')
  let status: string | undefined
  const body: string[] = []
  for (const line of all) {
    const marker = MARKER.exec(line)
    if (marker) {
      status = marker[2] !== undefined ? `exit ${marker[2]}` : marker[1]
      continue
    }
    body.push(line)
  }
  const stderrAt = body.indexOf('[stderr]')
  const stdout = (stderrAt < 0 ? body : body.slice(0, stderrAt)).filter((line) => line.trim() !== '')
  const stderr = stderrAt < 0 ? [] : body.slice(stderrAt + 1).filter((line) => line.trim() !== '')
  const failed = isError || status !== undefined
  // A failure shows what went wrong first: stderr, then stdout.
  const ordered = failed ? [...stderr, ...stdout] : [...stdout, ...stderr]
  const lines = ordered.length === 0 ? ['(no output)'] : ordered
  const count = lines.length === maxLines + 1 ? lines.length : Math.min(maxLines, lines.length)
  return {
    failed,
    ...(status !== undefined ? { status } : {}),
    lines: lines.slice(0, count),
    hidden: lines.length - count,
  }
}
