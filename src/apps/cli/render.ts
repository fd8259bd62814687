// Terminal rendering of live agent output: colours that respect NO_COLOR and non-TTY
// streams, compact tool lines, the streamed chat view and the headless progress view.

import type { AgentOutput } from '../../agent/types.js'

export interface Colors {
  readonly enabled: boolean
  dim(text: string): string
  bold(text: string): string
  red(text: string): string
  green(text: string): string
  yellow(text: string): string
  cyan(text: string): string
}

/** Colours for `stream`: on only for a terminal, and never when NO_COLOR is set (non-empty) or TERM=dumb. */
export function colorsFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): Colors {
  const enabled = stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb'
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text
  return {
    enabled,
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  }
}

const CALL_SUMMARY_CHARS = 100
const RESULT_SUMMARY_CHARS = 100

/** `bash  ls -la` — the tool and what it was asked to do, on one line. */
export function describeToolCall(name: string, argumentsJson: string): string {
  let args: unknown
  try {
    args = JSON.parse(argumentsJson)
  } catch {
    return `${name}  ${clip(argumentsJson, CALL_SUMMARY_CHARS)}`
  }
  const fields = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {}
  const main = fields.command ?? fields.description ?? fields.prompt
  const detail =
    typeof main === 'string' ? main : Object.keys(fields).length === 0 ? '' : JSON.stringify(args)
  return detail === '' ? name : `${name}  ${clip(detail, CALL_SUMMARY_CHARS)}`
}

/** The first non-empty line of a tool result, with a count of the rest. */
export function describeToolResult(content: string): string {
  const lines = content.split('\n').filter((line) => line.trim() !== '')
  if (lines.length === 0) return '(no output)'
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : ''
  return clip(lines[0]!, RESULT_SUMMARY_CHARS) + more
}

/** One line, at most `max` characters. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s*\n\s*/g, ' ↵ ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

export type OutputRenderer = (output: AgentOutput) => void

/**
 * The chat view: answer text streamed as it arrives, reasoning dimmed, a compact
 * line per tool call and its result. Everything goes to one stream.
 */
export function createStreamRenderer(out: NodeJS.WritableStream, colors: Colors): OutputRenderer {
  let atLineStart = true
  let inReasoning = false
  const write = (text: string) => {
    if (text === '') return
    out.write(text)
    atLineStart = text.endsWith('\n')
  }
  const newline = () => {
    if (!atLineStart) write('\n')
  }
  return (output) => {
    switch (output.type) {
      case 'reasoning-delta':
        if (!inReasoning) {
          newline()
          inReasoning = true
        }
        write(colors.dim(output.text))
        return
      case 'text-delta':
        if (inReasoning) {
          newline()
          inReasoning = false
        }
        write(output.text)
        return
      case 'tool-start':
        inReasoning = false
        newline()
        write(`${colors.cyan('●')} ${colors.bold(describeToolCall(output.name, output.arguments))}\n`)
        return
      case 'tool-end': {
        const summary = describeToolResult(output.content)
        write(`  ${colors.dim('⎿')} ${output.isError ? colors.red(summary) : colors.dim(summary)}\n`)
        return
      }
      case 'turn-end':
        newline()
        if (output.result.reason === 'aborted') write(`${colors.yellow('(interrupted)')}\n`)
        else if (output.result.reason !== 'completed') write(`${colors.red(turnEndLine(output.result))}\n`)
        return
      default:
        return
    }
  }
}

/**
 * The headless progress view (stderr): tool calls and short results, and text the
 * model wrote before calling tools. The final answer is the caller's, for stdout.
 */
export function createProgressRenderer(err: NodeJS.WritableStream, colors: Colors): OutputRenderer {
  let pending = ''
  return (output) => {
    switch (output.type) {
      case 'text-delta':
        pending += output.text
        return
      case 'tool-start':
        if (pending.trim() !== '') err.write(`${colors.dim(pending.trim())}\n`)
        pending = ''
        err.write(`${colors.cyan('●')} ${describeToolCall(output.name, output.arguments)}\n`)
        return
      case 'tool-end': {
        const summary = describeToolResult(output.content)
        err.write(`  ${colors.dim('⎿')} ${output.isError ? colors.red(summary) : colors.dim(summary)}\n`)
        return
      }
      case 'turn-end':
        pending = ''
        if (output.result.reason === 'aborted') err.write(`${colors.yellow('(interrupted)')}\n`)
        else if (output.result.reason !== 'completed')
          err.write(`${colors.red(turnEndLine(output.result))}\n`)
        return
      default:
        return
    }
  }
}

function turnEndLine(result: { reason: string; error?: string }): string {
  return `turn ended: ${result.reason}${result.error ? ` — ${clip(result.error, 300)}` : ''}`
}
