// The transcript view: turns an agent's live output into finished lines (committed to
// the screen's scrollback) and a live part (spinner with elapsed time, the streaming
// preview, running tool calls). Every byte from the model or a tool is sanitized.

import { formatCompactionLine } from '../../context/index.js'
import type { AgentOutput } from '../../plugin-api/index.js'
import { DIFF_TOOLS, renderDiffView } from '../shared/diff-view.js'
import { type Colors, clip, describeToolCall } from '../shared/render.js'
import { summarizeToolResult } from '../shared/tool-summary.js'
import { safe } from './chat-host.js'
import { MarkdownStream } from './markdown.js'

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
/** Result lines shown under a finished tool call. */
const TOOL_RESULT_LINES = 4
/** Diff lines shown under an edit; Ctrl-O prints the rest (up to EXPANDED_DIFF_LINES). */
const DIFF_LINES = 16
const EXPANDED_DIFF_LINES = 2000

interface RunningTool {
  header: string
  startedAt: number
  /** A `terminal_*` call: the terminal it drives (undefined id: the one it is starting). */
  terminal?: { id: string | undefined }
}

/** Calls that drive a terminal, and so show its screen while they run. */
const TERMINAL_CALLS = new Set(['terminal_start', 'terminal_send', 'terminal_read', 'terminal_resize'])

function terminalOf(name: string, argumentsJson: string): RunningTool['terminal'] {
  if (!TERMINAL_CALLS.has(name)) return undefined
  try {
    const { id } = JSON.parse(argumentsJson) as { id?: unknown }
    return { id: typeof id === 'string' ? id : undefined }
  } catch {
    return { id: undefined }
  }
}

export class TranscriptView {
  private readonly markdown: MarkdownStream
  private readonly reasoning: MarkdownStream
  private mode: 'idle' | 'text' | 'reasoning' = 'idle'
  private readonly tools = new Map<string, RunningTool>()
  /** Set while a turn runs: the spinner shows when nothing else is live. */
  private busySince: number | undefined
  private waitingSince = 0
  private reasoningLines = 0
  /** The reasoning's last line has no newline yet: it counts as a line too. */
  private reasoningLineOpen = false
  /** The latest edit result whose diff was cut, until Ctrl-O prints it whole. */
  private cutDiff: string | undefined
  /** While a retry waits: when it will be sent. */
  private retryUntil = 0
  /** Set while a compaction runs (automatic in a turn, or /compact). */
  private compactingSince: number | undefined
  showReasoning = true
  /** The last lines of a terminal's screen (see terminals-view.ts); unset: none are shown. */
  terminalTail: ((id: string | undefined) => string[]) | undefined

  constructor(
    private readonly colors: Colors,
    private readonly width: () => number,
    private readonly commit: (lines: string[]) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.markdown = new MarkdownStream(colors, width)
    this.reasoning = new MarkdownStream(PLAIN, () => width() - 2)
  }

  get busy(): boolean {
    return this.busySince !== undefined
  }

  /** Feeds one live output of the agent. */
  handle(output: AgentOutput): void {
    const { colors } = this
    switch (output.type) {
      case 'turn-start':
        this.busySince = this.now()
        this.waitingSince = this.now()
        return
      case 'reasoning-delta':
        if (this.mode !== 'reasoning') this.switchTo('reasoning')
        this.reasoningLines += (output.text.match(/\n/g) ?? []).length
        if (output.text !== '') this.reasoningLineOpen = !output.text.endsWith('\n')
        if (this.showReasoning)
          this.commit(this.reasoning.push(output.text).map((line) => this.dimLine(line)))
        else this.reasoning.push(output.text)
        return
      case 'text-delta':
        if (this.mode !== 'text') this.switchTo('text')
        this.commit(this.markdown.push(output.text))
        return
      case 'tool-start':
        this.switchTo('idle')
        this.tools.set(output.callId, {
          header: `${colors.cyan('●')} ${colors.bold(safe(describeToolCall(output.name, output.arguments)))}`,
          startedAt: this.now(),
          terminal: terminalOf(output.name, output.arguments),
        })
        return
      case 'tool-end': {
        const running = this.tools.get(output.callId)
        this.tools.delete(output.callId)
        const header =
          running?.header ?? `${colors.cyan('●')} ${colors.bold(safe(describeToolCall(output.name, '{}')))}`
        const elapsed = running ? colors.dim(` (${seconds(this.now() - running.startedAt)})`) : ''
        const diff = !output.isError && DIFF_TOOLS.has(output.name) ? this.diffLines(output.content) : []
        const diffAt = output.content.indexOf('\n--- ')
        const summary = diff.length > 0 && diffAt > 0 ? output.content.slice(0, diffAt) : output.content
        this.commit([header + elapsed, ...this.resultLines(summary, output.isError), ...diff])
        this.waitingSince = this.now()
        return
      }
      case 'compaction':
        this.switchTo('idle')
        if (output.phase === 'start') {
          this.commit([colors.dim('compacting context…')])
          this.compactingSince = this.now()
          return
        }
        this.compactingSince = undefined
        this.commit([colors.magenta(formatCompactionLine(output.result))])
        this.waitingSince = this.now()
        return
      case 'turn-end': {
        this.compactingSince = undefined
        this.switchTo('idle')
        const { result } = output
        this.tools.clear()
        this.busySince = undefined
        if (result.reason === 'aborted') this.commit([colors.yellow('(interrupted)')])
        else if (result.reason !== 'completed') {
          this.commit([
            colors.red(
              `turn ended: ${result.reason}${result.error ? ` — ${safe(clip(result.error, 300))}` : ''}`,
            ),
          ])
        }
        this.commit([''])
        return
      }
      default:
        return
    }
  }

  /** The live part: the streaming preview, running tools, or the spinner. */
  live(): string[] {
    const { colors } = this
    const lines: string[] = []
    if (this.mode === 'text') lines.push(...this.markdown.preview())
    if (this.mode === 'reasoning') {
      if (this.showReasoning) lines.push(...this.reasoning.preview().map((line) => this.dimLine(line)))
      else lines.push(colors.dim(`∴ thinking… (${this.reasoningLineCount()}; Ctrl-O shows)`))
    }
    const frame = SPINNER[Math.floor(this.now() / 100) % SPINNER.length]!
    if (this.compactingSince !== undefined) {
      const elapsed = seconds(this.now() - this.compactingSince)
      lines.push(colors.cyan(frame) + colors.dim(` compacting context… ${elapsed} · Ctrl-C cancels`))
      return lines
    }
    if (this.busySince === undefined) return lines
    for (const tool of this.tools.values()) {
      lines.push(`${tool.header} ${colors.dim(`${frame} ${seconds(this.now() - tool.startedAt)}`)}`)
      if (tool.terminal && this.terminalTail) {
        for (const line of this.terminalTail(tool.terminal.id))
          lines.push(colors.dim(`  │ ${clip(line, Math.max(10, this.width() - 4))}`))
      }
    }
    if (this.tools.size === 0 && this.mode === 'idle') {
      const waiting =
        this.retryUntil > this.now()
          ? `retrying in ${Math.ceil((this.retryUntil - this.now()) / 1000)}s…`
          : `thinking… ${seconds(this.now() - this.waitingSince)}`
      lines.push(colors.cyan(frame) + colors.dim(` ${waiting} · Ctrl-C interrupts`))
    }
    return lines
  }

  /** A failed model request will be tried again after `delayMs`: one line, and the spinner says so. */
  retry(info: { attempt: number; delayMs: number; reason: string }, maxRetries: number): void {
    const seconds = Math.max(1, Math.round(info.delayMs / 1000))
    const reason = safe(clip(info.reason, 120))
    // One format with `dsh run` (describeRetry): the attempt about to be made, of all attempts.
    this.commit([
      this.colors.yellow(`⟳ retrying in ${seconds} s (${info.attempt + 1}/${maxRetries + 1}): ${reason}`),
    ])
    this.retryUntil = this.now() + info.delayMs
    this.waitingSince = this.now()
  }

  /** A compaction ended without its end notice (it failed or was cancelled): the spinner stops. */
  compactionStopped(): void {
    this.compactingSince = undefined
  }

  /**
   * Ctrl-O: prints the latest cut diff whole when there is one, else shows or hides reasoning
   * from now on. Returns the line saying which.
   */
  ctrlO(): string {
    if (this.cutDiff !== undefined) {
      const content = this.cutDiff
      this.cutDiff = undefined
      this.commit(splitLines(renderDiffView(content, this.colors, EXPANDED_DIFF_LINES)))
      return this.colors.dim('(the whole diff; Ctrl-O again shows/hides reasoning)')
    }
    this.showReasoning = !this.showReasoning
    return this.colors.dim(`reasoning ${this.showReasoning ? 'shown' : 'hidden'} (Ctrl-O)`)
  }

  /** The coloured diff of an edit result, cut at DIFF_LINES (then Ctrl-O prints it whole). */
  private diffLines(content: string): string[] {
    const lines = splitLines(renderDiffView(content, this.colors, DIFF_LINES))
    const cut = lines.length > DIFF_LINES
    if (cut) {
      this.cutDiff = content
      lines[lines.length - 1] = `${lines.at(-1)}${this.colors.dim(' (Ctrl-O shows all)')}`
    }
    return lines
  }

  /** `1 line`, `3 lines`: the reasoning so far, its unfinished last line included. */
  private reasoningLineCount(): string {
    const count = this.reasoningLines + (this.reasoningLineOpen ? 1 : 0)
    return `${count} line${count === 1 ? '' : 's'}`
  }

  private switchTo(mode: 'idle' | 'text' | 'reasoning'): void {
    if (this.mode === mode) return
    if (this.mode === 'text') this.commit(this.markdown.finish())
    if (this.mode === 'reasoning') {
      const rest = this.reasoning.finish()
      if (this.showReasoning) this.commit(rest.map((line) => this.dimLine(line)))
      else this.commit([this.colors.dim(`∴ thought (${this.reasoningLineCount()} hidden; Ctrl-O shows)`)])
      this.reasoningLines = 0
      this.reasoningLineOpen = false
    }
    if (mode === 'idle') this.waitingSince = this.now()
    this.mode = mode
  }

  private dimLine(line: string): string {
    return this.colors.dim(`∴ ${line}`)
  }

  private resultLines(content: string, isError: boolean): string[] {
    const { colors } = this
    const summary = summarizeToolResult(safe(content), isError, TOOL_RESULT_LINES)
    const paint = summary.failed ? colors.red : colors.dim
    const maxChars = Math.max(20, this.width() - 6)
    const lines = summary.lines.map(
      (line, index) => `  ${index === 0 ? colors.dim('⎿') : ' '} ${paint(clip(line, maxChars))}`,
    )
    if (summary.hidden > 0) lines.push(colors.dim(`    … +${summary.hidden} lines`))
    if (summary.status !== undefined) lines.push(`    ${colors.red(colors.bold(`✗ ${summary.status}`))}`)
    return lines
  }
}

/** A rendered block's lines, without the final newline's empty line. */
function splitLines(block: string): string[] {
  return block === '' ? [] : block.replace(/\n$/, '').split('\n')
}

function seconds(ms: number): string {
  const s = Math.floor(ms / 1000)
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`
}

/** Reasoning is shown dimmed as plain text: no colours inside it. */
const same = (text: string) => text
const PLAIN: Colors = {
  enabled: false,
  dim: same,
  bold: same,
  red: same,
  green: same,
  yellow: same,
  cyan: same,
  magenta: same,
  italic: same,
  underline: same,
  strike: same,
}
