// The transcript model of the session page: the log's events folded into display items
// (messages, tool cards, hook decisions, turn ends with usage, compaction boundaries), plus
// the live part of a running turn built from the agent's streamed output. Pure: no DOM, tested in Node.

import type { ImageRef } from '../../../llm/types.js'
import type { AgentOutput, CompactionNotice } from '../../../plugin-api/index.js'
import type {
  ContextCompactedData,
  HookResultData,
  SessionEvent,
  SessionEventMap,
} from '../../../session/types.js'
// The modules themselves, not usage/index.ts: that one also carries a Node-side plugin.
import { UsageMeter } from '../../../usage/derive.js'
import type { PriceTable } from '../../../usage/price-table.js'
import type { UsageTotals } from '../../../usage/totals.js'

export type Item =
  | { kind: 'user'; key: string; text: string; origin: string | undefined; images: ImageRef[] }
  | { kind: 'assistant'; key: string; text: string; reasoning: string }
  | { kind: 'tool'; key: string; tool: ToolCard }
  | { kind: 'hook'; key: string; hook: HookResultData }
  | {
      kind: 'turn-end'
      key: string
      turn: number
      reason: string
      error: string | undefined
      /** The turn's tokens and cost, from the one usage derivation (src/usage). */
      usage: UsageTotals
      currency: string
    }
  | { kind: 'notice'; key: string; text: string }
  /** A compaction boundary: the model's history starts again from here (the log keeps everything). */
  | { kind: 'compaction'; key: string; compaction: ContextCompactedData }

export interface ToolCard {
  callId: string
  name: string
  /** The model's arguments (JSON text). */
  arguments: string
  /** The command of a bash call. */
  command: string | undefined
  /** `images`: what the tool returned to the model (the `read` tool on an image file). */
  result: { content: string; isError: boolean; images: readonly ImageRef[] } | undefined
  /** Parsed from bash's `[exit code: N]` marker; 0 when a finished bash call shows none. */
  exitCode: number | undefined
  /** The session a `subagent` call ran in. */
  subSession: string | undefined
  /** Its turn has not ended: with no result yet, it is running (or awaiting approval). */
  open: boolean
}

/** Tools whose result ends with a unified diff. */
export const DIFF_TOOLS: ReadonlySet<string> = new Set(['write', 'edit', 'multi_edit'])

/** Folds events into items incrementally: `add` as they arrive, `items` in order. */
export class TranscriptModel {
  readonly items: Item[] = []
  /** Where each tool call's card is in `items`, by call id. */
  private readonly tools = new Map<string, number>()
  /** Calls of the turn still open. */
  private openCalls: string[] = []

  /** The turn ended: its calls that never got a result show "no result", not "running". */
  private closeOpenCalls(): void {
    for (const callId of this.openCalls) {
      const index = this.tools.get(callId)
      const item = index === undefined ? undefined : this.items[index]
      if (index === undefined || item?.kind !== 'tool' || !item.tool.open) continue
      this.items[index] = { ...item, tool: { ...item.tool, open: false } }
    }
    this.openCalls = []
  }
  private readonly usage: UsageMeter
  /** The next seq expected; events before it are repeats (two sources overlapped). */
  nextSeq = 0
  /** Bumped on every change, so views know when to re-render. */
  version = 0

  /** `prices`: the server's resolved price table (the session response carries it). */
  constructor(prices: PriceTable) {
    this.usage = new UsageMeter(prices)
  }

  add(event: SessionEvent): boolean {
    if (event.seq < this.nextSeq) return false
    this.nextSeq = event.seq + 1
    this.version += 1
    this.usage.add(event)
    const key = `e${event.seq}`
    switch (event.type) {
      case 'turn/start':
        return true
      case 'user/message': {
        const data = event.data as SessionEventMap['user/message']
        this.items.push({
          kind: 'user',
          key,
          text: data.text,
          origin: data.origin,
          images: data.images ?? [],
        })
        return true
      }
      case 'assistant/message': {
        const { message } = event.data as SessionEventMap['assistant/message']
        if (message.content !== '' || (message.reasoning ?? '') !== '')
          this.items.push({
            kind: 'assistant',
            key,
            text: message.content,
            reasoning: message.reasoning ?? '',
          })
        return true
      }
      case 'tool/call': {
        const data = event.data as SessionEventMap['tool/call']
        const tool = { ...toolCard(data.callId, data.name, data.arguments), open: true }
        const item = { kind: 'tool' as const, key, tool }
        this.tools.set(data.callId, this.items.length)
        this.openCalls.push(data.callId)
        this.items.push(item)
        return true
      }
      case 'tool/result': {
        const data = event.data as SessionEventMap['tool/result']
        const index = this.tools.get(data.callId)
        const item = index === undefined ? undefined : this.items[index]
        if (index === undefined || item?.kind !== 'tool') return true
        // A new object, so a view that memoizes by identity re-renders the card.
        this.items[index] = {
          ...item,
          tool: withResult(item.tool, data.content, data.isError === true, data.images ?? []),
        }
        return true
      }
      case 'hook/result':
        this.items.push({ kind: 'hook', key, hook: event.data as HookResultData })
        return true
      case 'turn/end': {
        const data = event.data as SessionEventMap['turn/end']
        this.closeOpenCalls()
        this.items.push({
          kind: 'turn-end',
          key,
          turn: data.turn,
          reason: data.reason,
          error: data.error,
          usage: this.usage.turnTotals(data.turn),
          currency: this.usage.currency,
        })
        return true
      }
      case 'instructions/loaded': {
        const data = event.data as SessionEventMap['instructions/loaded']
        this.items.push({ kind: 'notice', key, text: `instructions loaded: ${data.files.join(', ')}` })
        return true
      }
      case 'context/compacted':
        this.items.push({ kind: 'compaction', key, compaction: event.data as ContextCompactedData })
        return true
      case 'context/added': {
        const data = event.data as SessionEventMap['context/added']
        this.items.push({ kind: 'notice', key, text: `context from ${data.source}: ${data.text}` })
        return true
      }
      default:
        this.version -= 1
        return true
    }
  }
}

/** The part of a running turn not yet in the log: streamed text and reasoning, running tools. */
export class LiveTurn {
  text = ''
  reasoning = ''
  running = false
  /** A compaction in progress (automatic within a turn, or asked for). */
  compacting: Extract<CompactionNotice, { phase: 'start' }> | undefined = undefined
  readonly tools = new Map<string, ToolCard>()
  version = 0
  private readonly listeners = new Set<() => void>()
  /** Calls of this turn the log already holds (their cards are the transcript's). */
  private readonly committedCalls = new Set<string>()

  /** Calls `listener` after every change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  handle(output: AgentOutput): void {
    this.apply(output)
    this.changed()
  }

  private changed(): void {
    this.version += 1
    for (const listener of this.listeners) listener()
  }

  private apply(output: AgentOutput): void {
    switch (output.type) {
      case 'turn-start':
        this.running = true
        this.text = ''
        this.reasoning = ''
        this.tools.clear()
        return
      case 'text-delta':
        this.text += output.text
        return
      case 'reasoning-delta':
        this.reasoning += output.text
        return
      case 'tool-start':
        // The log's tool/call came first: the transcript's card shows the call running already.
        if (!this.committedCalls.has(output.callId))
          this.tools.set(output.callId, toolCard(output.callId, output.name, output.arguments))
        return
      case 'tool-end':
        this.tools.delete(output.callId)
        return
      case 'compaction':
        this.compacting = output.phase === 'start' ? output : undefined
        return
      case 'turn-end':
        this.running = false
        this.compacting = undefined
        this.text = ''
        this.reasoning = ''
        this.tools.clear()
        return
      default:
        return
    }
  }

  /** A durable event arrived: what it makes durable leaves the live part. */
  committed(event: SessionEvent): void {
    if (event.type === 'assistant/message') {
      this.text = ''
      this.reasoning = ''
      this.changed()
    }
    if (event.type === 'context/compacted' && this.compacting !== undefined) {
      this.compacting = undefined
      this.changed()
    }
    if (event.type === 'tool/call') {
      const { callId } = event.data as SessionEventMap['tool/call']
      this.committedCalls.add(callId)
      this.tools.delete(callId)
      this.changed()
    }
    if (event.type === 'turn/end') this.committedCalls.clear()
  }
}

export function toolCard(callId: string, name: string, args: string): ToolCard {
  let command: string | undefined
  try {
    const parsed = JSON.parse(args) as { command?: unknown }
    if (name === 'bash' && typeof parsed.command === 'string') command = parsed.command
  } catch {
    // Arguments that are not JSON are shown as they are.
  }
  return {
    callId,
    name,
    arguments: args,
    command,
    result: undefined,
    exitCode: undefined,
    subSession: undefined,
    open: false,
  }
}

function withResult(
  card: ToolCard,
  content: string,
  isError: boolean,
  images: readonly ImageRef[],
): ToolCard {
  const exit = /\[exit code: (-?\d+)\]/.exec(content)
  const sub = /^\[sub-agent session ([^\]\n]+)\]/.exec(content)
  return {
    ...card,
    result: { content, isError, images },
    exitCode: exit ? Number(exit[1]) : card.name === 'bash' && !isError ? 0 : undefined,
    subSession: sub?.[1],
  }
}

/** The unified diff at the end of an edit tool's result, as lines; empty when there is none. */
export function diffLines(content: string): string[] {
  const lines = splitDiagnostics(content).body.split('\n')
  const start = lines.findIndex(
    (line, index) => line.startsWith('--- ') && lines[index + 1]?.startsWith('+++ '),
  )
  return start < 0 ? [] : lines.slice(start)
}

/**
 * An edit's result without the language-server feedback dsh appends (`LSP: ...` lines after
 * a blank line, docs/lsp.md), and that feedback, shown apart under the edit.
 */
export function splitDiagnostics(content: string): { body: string; diagnostics: string } {
  const at = content.search(/\n\nLSP: /)
  if (at < 0) return { body: content, diagnostics: '' }
  return { body: content.slice(0, at), diagnostics: content.slice(at + 2) }
}
