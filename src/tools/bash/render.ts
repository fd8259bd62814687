// Renders executor results as the text the model sees: stdout tail, a `[stderr]` section,
// `(no output)`, and one marker line per notable fact.

import type { CapturedOutput, ShellJobHandle, ShellResult } from '../../shell/types.js'

export function renderShellResult(result: ShellResult): string {
  const lines = renderStreams(result.stdout, result.stderr)
  if (result.timedOut) lines.push(`[timed out after ${result.timeoutMs}ms]`)
  else if (result.killed) lines.push('[cancelled]')
  if (result.signal) lines.push(`[killed by signal: ${result.signal}]`)
  if (result.exitCode !== null && result.exitCode !== 0) lines.push(`[exit code: ${result.exitCode}]`)
  return lines.join('\n')
}

/** A job's status line and, while it runs, its output so far; once done, its full result. */
export async function renderJob(job: ShellJobHandle): Promise<string> {
  const header = `[job ${job.id}: ${job.status}] ${job.command}`
  if (job.status === 'running') {
    const { stdout, stderr } = job.output()
    return [header, ...renderStreams(stdout, stderr)].join('\n')
  }
  return `${header}\n${renderShellResult(await job.done)}`
}

function renderStreams(stdout: CapturedOutput, stderr: CapturedOutput): string[] {
  const lines: string[] = []
  if (stdout.totalChars > 0) lines.push(...section(stdout))
  if (stderr.totalChars > 0) lines.push('[stderr]', ...section(stderr))
  if (lines.length === 0) lines.push('(no output)')
  return lines
}

function section(output: CapturedOutput): string[] {
  const lines: string[] = []
  if (output.truncated) {
    lines.push(
      output.fullOutputPath !== undefined
        ? output.droppedChars
          ? `[output truncated; full output: ${output.fullOutputPath} (only its first part: ${output.droppedChars} more characters were dropped)]`
          : `[output truncated; full output: ${output.fullOutputPath}]`
        : `[output truncated; last ${output.text.length} of ${output.totalChars} characters]`,
    )
  }
  lines.push(output.text.endsWith('\n') ? output.text.slice(0, -1) : output.text)
  return lines
}
