// Terminal rendering of live agent output: colours that respect NO_COLOR and non-TTY
// streams, compact tool lines, the streamed chat view and the headless progress view.

import { formatCompactionLine } from '../../context/index.js'
import { expandTabs, toTerminalText } from '../../core/terminal-text.js'
import type { AgentOutput } from '../../plugin-api/index.js'
import type { Colors } from './colors.js'

/** Model and tool text as the terminal may show it (escape sequences shown escaped). */
function safe(text: string): string {
  return toTerminalText(expandTabs(text), { keepTabs: false })
}

import { DIFF_TOOLS, renderDiffView } from './diff-view.js'
import { summarizeToolResult } from './tool-summary.js'

export type { Colors } from './colors.js'

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
    magenta: wrap(35, 39),
    italic: wrap(3, 23),
    underline: wrap(4, 24),
    strike: wrap(9, 29),
  }
}

const CALL_SUMMARY_CHARS = 100
const RESULT_SUMMARY_CHARS = 100
/** Result lines the chat view shows per tool call. */
const STREAM_RESULT_LINES = 4
/** Result line width when the stream is not a terminal. */
const WIDE_RESULT_CHARS = 200

/** `bash  ls -la` — the tool and what it was asked to do, on one line. */
export function describeToolCall(name: string, argumentsJson: string): string {
  let args: unknown
  try {
    args = JSON.parse(argumentsJson)
  } catch {
    return `${name}  ${clip(argumentsJson, CALL_SUMMARY_CHARS)}`
  }
  const fields = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {}
  const main =
    fields.command ??
    fields.description ??
    fields.prompt ??
    fields.file_path ??
    fields.pattern ??
    fields.skill
  if (typeof main === 'string') {
    const lines = main.trim().split('\n')
    const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : ''
    return `${name}  ${clip(lines[0]!, CALL_SUMMARY_CHARS)}${more}`
  }
  return Object.keys(fields).length === 0
    ? name
    : `${name}  ${clip(JSON.stringify(args), CALL_SUMMARY_CHARS)}`
}

/** The first `maxLines` non-empty lines of a tool result, then a count of the rest. */
export function describeToolResult(content: string, maxLines = 1, maxChars = RESULT_SUMMARY_CHARS): string[] {
  const lines = content.split('\n').filter((line) => line.trim() !== '')
  if (lines.length === 0) return ['(no output)']
  // A "+1 lines" marker takes the line it hides: show that line instead.
  const count = lines.length === maxLines + 1 ? lines.length : maxLines
  const shown = lines.slice(0, count).map((line) => clip(line, maxChars))
  const hidden = lines.length - shown.length
  if (hidden === 0) return shown
  // One line stays one line; longer previews end with a line of their own.
  if (maxLines === 1) return [`${shown[0]} (+${hidden} lines)`]
  return [...shown, `… +${hidden} lines`]
}

/** Tool result lines under a `⎿`, red when the call failed. */
function resultBlock(
  content: string,
  isError: boolean,
  maxLines: number,
  out: NodeJS.WritableStream,
  colors: Colors,
): string {
  const paint = isError ? colors.red : colors.dim
  const columns = (out as NodeJS.WriteStream).columns
  const maxChars = columns ? Math.max(40, columns - 6) : WIDE_RESULT_CHARS
  return describeToolResult(safe(content), maxLines, maxChars)
    .map((line, index) => `  ${index === 0 ? colors.dim('⎿') : ' '} ${paint(line)}\n`)
    .join('')
}

/**
 * The progress view's one result line: for a failed command the first stderr line and
 * its `exit N` (what the chat shows), else the first output line; a count of the rest.
 */
function progressResultLine(
  content: string,
  isError: boolean,
  err: NodeJS.WritableStream,
  colors: Colors,
): string {
  const summary = summarizeToolResult(safe(content), isError, 1)
  const columns = (err as NodeJS.WriteStream).columns
  const status = summary.status !== undefined ? ` · ${summary.status}` : ''
  const more = summary.hidden > 0 ? ` (+${summary.hidden} lines)` : ''
  const maxChars = (columns ? Math.max(40, columns - 6) : WIDE_RESULT_CHARS) - status.length - more.length
  const paint = summary.failed ? colors.red : colors.dim
  return `  ${colors.dim('⎿')} ${paint(`${clip(summary.lines[0] ?? '', Math.max(20, maxChars))}${more}${status}`)}\n`
}

/** One line, at most `max` characters, safe for a terminal (escape sequences shown escaped). */
export function clip(text: string, max: number): string {
  const line = toTerminalText(
    expandTabs(text)
      .replace(/\s*\n\s*/g, ' ↵ ')
      .trim(),
    { keepTabs: false },
  )
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

export type OutputRenderer = (output: AgentOutput) => void

/**
 * Where the streamed view puts the model's reasoning: `inline` (dimmed, among the text:
 * a terminal), `marked` (on the same stream between `[thinking]` and `[/thinking]`
 * lines: a pipe with --show-reasoning), or another stream (stderr: a pipe by default,
 * so reasoning never mixes into the answers on stdout), as `codex exec` does.
 */
export type ReasoningPlacement = 'inline' | 'marked' | NodeJS.WritableStream

/** The placement for output on `out`: inline on a terminal, else stderr unless asked to show it. */
export function reasoningPlacement(
  out: NodeJS.WriteStream,
  showReasoning: boolean | undefined,
): ReasoningPlacement {
  if (out.isTTY) return 'inline'
  return showReasoning ? 'marked' : process.stderr
}

/**
 * The chat view: answer text streamed as it arrives, reasoning where `reasoning` says,
 * a compact line per tool call and its result.
 */
export function createStreamRenderer(
  out: NodeJS.WritableStream,
  colors: Colors,
  reasoning: ReasoningPlacement = 'inline',
): OutputRenderer {
  let atLineStart = true
  let inReasoning = false
  /** Whether the reasoning stream (when it is not `out`) ends a line. */
  let asideAtLineStart = true
  /** Text after a tool result starts a new paragraph. */
  let afterTool = false
  const write = (text: string) => {
    if (text === '') return
    out.write(text)
    atLineStart = text.endsWith('\n')
  }
  const newline = () => {
    if (!atLineStart) write('\n')
  }
  const aside = (text: string) => {
    if (typeof reasoning === 'string' || text === '') return
    reasoning.write(text)
    asideAtLineStart = text.endsWith('\n')
  }
  const startReasoning = () => {
    if (inReasoning) return
    inReasoning = true
    if (reasoning === 'inline') newline()
    else if (reasoning === 'marked') {
      newline()
      write('[thinking]\n')
    } else aside(asideAtLineStart ? 'thinking: ' : '\nthinking: ')
  }
  const endReasoning = () => {
    if (!inReasoning) return
    inReasoning = false
    if (reasoning === 'inline') newline()
    else if (reasoning === 'marked') {
      newline()
      write('[/thinking]\n')
    } else if (!asideAtLineStart) aside('\n')
  }
  return (output) => {
    switch (output.type) {
      case 'reasoning-delta':
        startReasoning()
        if (typeof reasoning === 'string')
          write(reasoning === 'inline' ? colors.dim(safe(output.text)) : safe(output.text))
        else aside(safe(output.text))
        return
      case 'text-delta':
        endReasoning()
        if (afterTool) {
          write('\n')
          afterTool = false
        }
        write(safe(output.text))
        return
      case 'tool-start':
        endReasoning()
        newline()
        write(`${colors.cyan('●')} ${colors.bold(safe(describeToolCall(output.name, output.arguments)))}\n`)
        return
      case 'tool-end':
        write(resultBlock(output.content, output.isError, STREAM_RESULT_LINES, out, colors))
        if (!output.isError && DIFF_TOOLS.has(output.name)) write(renderDiffView(output.content, colors))
        afterTool = true
        return
      case 'retry':
        newline()
        write(`${colors.yellow(output.message)}\n`)
        return
      case 'compaction':
        newline()
        write(`${colors.dim(compactionNotice(output))}\n`)
        return
      case 'turn-end':
        endReasoning()
        newline()
        if (output.result.reason === 'aborted') write(`${colors.yellow('(interrupted)')}\n`)
        else if (output.result.reason !== 'completed')
          write(`${colors.red(turnEndLine(output.result, out))}\n`)
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
        if (pending.trim() !== '') err.write(`${colors.dim(safe(pending.trim()))}\n`)
        pending = ''
        err.write(`${colors.cyan('●')} ${safe(describeToolCall(output.name, output.arguments))}\n`)
        return
      case 'tool-end':
        err.write(progressResultLine(output.content, output.isError, err, colors))
        if (!output.isError && DIFF_TOOLS.has(output.name)) err.write(renderDiffView(output.content, colors))
        return
      case 'retry':
        err.write(`${colors.yellow(output.message)}\n`)
        return
      case 'compaction':
        err.write(`${colors.dim(compactionNotice(output))}\n`)
        return
      case 'turn-end':
        pending = ''
        if (output.result.reason === 'aborted') err.write(`${colors.yellow('(interrupted)')}\n`)
        else if (output.result.reason !== 'completed')
          err.write(`${colors.red(turnEndLine(output.result, err))}\n`)
        return
      default:
        return
    }
  }
}

/** `compacting context…` when a compaction starts, `context compacted: 812k → 41k tokens` when it ends. */
export function compactionNotice(output: Extract<AgentOutput, { type: 'compaction' }>): string {
  return output.phase === 'start' ? 'compacting context…' : formatCompactionLine(output.result)
}

/** `turn ended: REASON — error`, cut to the terminal's width on a terminal and never on a file or pipe. */
function turnEndLine(result: { reason: string; error?: string }, out: NodeJS.WritableStream): string {
  const line = `turn ended: ${result.reason}${result.error ? ` — ${result.error}` : ''}`
  const columns = (out as NodeJS.WriteStream).isTTY ? (out as NodeJS.WriteStream).columns : undefined
  return clip(line, columns ? Math.max(40, columns - 1) : Number.POSITIVE_INFINITY)
}
