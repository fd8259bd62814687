// The context service (`ctx.context`): how full the next request is, automatic and manual
// compaction (prune, then summarise), recovery from the server's context-length error, and
// fitting `max_tokens` into what is left of the window.

import { type Context, Service } from 'cordis'
import { nameImagesPastLimit, readyRequestImages } from '../attachments/request.js'
import { DshError, errorMessage } from '../core/errors.js'
import { lastInstructions } from '../instructions/log.js'
import type { ModelRequest } from '../llm/adapter.js'
import { DEEPSEEK_MODEL_LIMITS } from '../llm/deepseek/models.js'
import type { ChatMessage, Usage } from '../llm/types.js'
import type {
  CompactionPlan,
  CompactionResult,
  CompactOptions,
  ContextBreakdown,
  ContextSettings,
  ContextUsage,
  PrepareOptions,
} from '../plugin-api/index.js'
import { historyAfterCompaction } from '../session/history.js'
import type { Session } from '../session/session.js'
import type { ContextCompactedData } from '../session/types.js'
import { ContextErrorCode } from './errors.js'
import { estimateMessage, estimateTextTokens, estimateTools, messageTotal } from './estimate.js'
import { pruneCompactor } from './prune-compactor.js'
import { prunedView, summaryCompactor, summaryOutputTokens } from './summary-compactor.js'

/** After pruning alone the request must be under this share of the window, or it is summarised too. */
export const PRUNE_TARGET_SHARE = 0.25
/** Room kept free of `max_tokens` for the estimate's error, as a share of the window. */
export const OUTPUT_MARGIN_SHARE = 0.05
/** The least output a request is sent with; less room than this needs a compaction first. */
export const MIN_OUTPUT_TOKENS = 1_024

/**
 * The state a PreCompact listener sees. Setting `block` stops the compaction, as Claude Code
 * documents: a manual one rejects; an automatic one before the window is reached is skipped
 * (the request goes out uncompacted if it fits); one that would recover from the server's
 * context-length error lets that error stand.
 */
export interface PreCompactState {
  readonly session: Session
  readonly trigger: 'auto' | 'manual'
  readonly instructions?: string
  signal?: AbortSignal
  block?: string
}

/** The server's count of the last answered request, and the messages it held. */
interface Measured {
  promptTokens: number
  messages: readonly ChatMessage[]
}

export class ContextService extends Service {
  private readonly measured = new WeakMap<Session, Measured>()
  /** Windows servers named in their context-length errors, by model: smaller than believed. */
  private readonly learned = new Map<string, number>()

  constructor(
    ctx: Context,
    readonly settings: ContextSettings,
  ) {
    super(ctx, 'context')
  }

  /** The window of `model`: `model.contextWindow` from config, else the model table, else unknown. */
  window(model: string | undefined): number | undefined {
    const learned = model === undefined ? undefined : this.learned.get(model)
    const believed =
      this.settings.contextWindow ?? (model ? DEEPSEEK_MODEL_LIMITS[model]?.contextWindow : undefined)
    return learned !== undefined && (believed === undefined || learned < believed) ? learned : believed
  }

  /** Remembers the window a server named for `model` (its context-length error), for this process. */
  learnWindow(model: string | undefined, window: number): void {
    if (model !== undefined && Number.isInteger(window) && window > 0) this.learned.set(model, window)
  }

  /** How full `request` is: the server's last count plus estimates of what came since. */
  usage(session: Session, request: ModelRequest): ContextUsage {
    const breakdown = this.breakdown(session, request)
    const estimate = Object.values(breakdown).reduce((sum, tokens) => sum + tokens, 0)
    const window = this.window(request.model)
    const last = this.measured.get(session)
    const base: Omit<ContextUsage, 'tokens' | 'measured'> =
      window !== undefined ? { window, breakdown } : { breakdown }
    if (last && sharesPrefix(request.messages, last.messages)) {
      let tokens = last.promptTokens
      for (let i = last.messages.length; i < request.messages.length; i++)
        tokens += messageTotal(request.messages[i]!)
      return { ...base, tokens, measured: true }
    }
    return { ...base, tokens: estimate, measured: false }
  }

  /** Records the server's count for `request` (its `prompt_tokens`). */
  recordUsage(session: Session, request: ModelRequest, usage: Usage | undefined): void {
    if (usage && usage.promptTokens > 0) {
      this.measured.set(session, { promptTokens: usage.promptTokens, messages: request.messages })
    }
  }

  /**
   * The request to send: compacted first when it passes the threshold (or leaves no room to
   * answer), with `max_tokens` lowered to what the window has left. Rejects when even a
   * compacted request does not fit.
   */
  async prepare(session: Session, request: ModelRequest, options: PrepareOptions): Promise<ModelRequest> {
    const window = this.window(request.model)
    if (window === undefined) return request
    const usage = this.usage(session, request)
    let tokens = usage.tokens
    const fixed = usage.breakdown.system + usage.breakdown.tools + usage.breakdown.instructions
    // The one message that must fit whole: a tool result may be pruned to its placeholder
    // (compaction does that below), a prompt may not.
    const lastMessage = request.messages.at(-1)
    const lastKept =
      lastMessage?.role === 'tool'
        ? prunedView([lastMessage], new Set([lastMessage.toolCallId]))[0]
        : lastMessage
    const smallest = fixed + (lastKept && request.messages.length > 1 ? messageTotal(lastKept) : 0)
    if (smallest + MIN_OUTPUT_TOKENS > window) {
      throw new DshError(
        `the context window (${window} tokens${this.settings.contextWindow !== undefined ? ', model.contextWindow' : ''}) is too small to hold the system prompt, the tool definitions and one message (about ${smallest} tokens) with room to answer`,
        ContextErrorCode.DoesNotFit,
        { userFacing: true },
      )
    }
    let blocked: string | undefined
    if (
      this.settings.auto &&
      !options.noCompaction &&
      (tokens > this.settings.threshold * window || this.room(window, tokens) < MIN_OUTPUT_TOKENS)
    ) {
      try {
        await this.compact(session, { ...options, trigger: 'auto', reason: 'threshold' })
        request = options.rebuild()
        tokens = this.usage(session, request).tokens
      } catch (error) {
        // A blocked compaction before the limit is skipped: the request goes out as it is.
        if (!(error instanceof DshError && error.code === ContextErrorCode.Blocked)) throw error
        blocked = error.message
      }
    }
    const room = this.room(window, tokens)
    if (room < MIN_OUTPUT_TOKENS) {
      const why =
        blocked !== undefined
          ? ` (${blocked})`
          : this.settings.auto
            ? ' even after compaction'
            : ' (compaction.auto is off: /compact or dsh sessions compact)'
      throw new DshError(
        `the conversation needs about ${tokens} tokens, which leaves no room to answer in the ${window}-token window${why}`,
        ContextErrorCode.DoesNotFit,
        { userFacing: true },
      )
    }
    const wanted = request.maxTokens ?? this.settings.defaultMaxTokens
    const limit = request.model ? DEEPSEEK_MODEL_LIMITS[request.model]?.maxOutputTokens : undefined
    const maxTokens = Math.min(wanted, limit ?? wanted, room)
    if (maxTokens !== wanted) request.maxTokens = maxTokens
    return request
  }

  /**
   * Compacts the session: the PreCompact listeners run on a durable log, then older tool
   * outputs are pruned (automatic compaction) and, when that is not enough or a user asked,
   * the history is summarised; one `context/compacted` event records it. Rejects (and writes
   * no boundary) with CONTEXT_COMPACTION_BLOCKED when a PreCompact listener blocks it, or
   * when the summary call fails.
   */
  async compact(session: Session, options: CompactOptions): Promise<CompactionResult> {
    const llm = this.ctx.get('llm')
    if (!llm) throw new DshError('no model adapter is loaded', ContextErrorCode.SummaryFailed)
    const request = options.rebuild()
    const before = this.usage(session, request).tokens
    const window = this.window(request.model) ?? options.windowHint ?? Math.max(1, Math.floor(before * 0.75))

    // Durability checkpoint: PreCompact hooks read the whole transcript.
    await this.ctx.get('sessions')?.flush(session)
    const state: PreCompactState = { session, trigger: options.trigger }
    if (options.instructions !== undefined)
      (state as { instructions?: string }).instructions = options.instructions
    if (options.signal) state.signal = options.signal
    await this.ctx.serial('context/pre-compact', state)
    if (state.block !== undefined) {
      const what = options.trigger === 'manual' ? 'compaction' : 'automatic compaction'
      throw new DshError(`${what} blocked by a PreCompact hook: ${state.block}`, ContextErrorCode.Blocked, {
        userFacing: true,
      })
    }

    options.onCompaction?.({
      phase: 'start',
      trigger: options.trigger,
      ...(options.reason ? { reason: options.reason } : {}),
    })
    const pruned = prunedCalls(session)
    const plan: CompactionPlan = {}
    const input = {
      session,
      request,
      window,
      targetTokens: window * PRUNE_TARGET_SHARE,
      pruned,
      llm,
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    }
    if (options.trigger === 'auto') {
      const prune = await pruneCompactor.compact(input)
      for (const callId of prune?.pruned ?? []) pruned.add(callId)
      if (prune?.pruned) plan.pruned = prune.pruned
    }
    const view = prunedView(request.messages, pruned)
    const afterPrune = this.estimate(session, request, view)
    const summarise =
      options.trigger === 'manual' ||
      options.reason === 'overflow' ||
      afterPrune > window * PRUNE_TARGET_SHARE
    if (summarise) {
      // A manual compaction summarises everything; an automatic one keeps the recent steps.
      // The pruned view once more would be a second pass over every message: hand it on.
      // The summary call sees the images the next request would (a cache hit, and what they
      // showed reaches the summary), loaded from the store; past the per-request limit the
      // oldest are named in text, so such a conversation can still be summarised.
      const summaryRequest = { ...request, messages: nameImagesPastLimit(view) }
      await this.readyImages(session, summaryRequest, llm.defaultModel)
      const pruneApplied = { ...input, request: summaryRequest, keepTail: options.trigger === 'auto' }
      const summary = (await summaryCompactor.compact(pruneApplied))?.summary
      if (summary) plan.summary = summary
    }
    if (!plan.summary && !plan.pruned) {
      throw new DshError('there is nothing to compact', ContextErrorCode.NothingToCompact, {
        userFacing: true,
      })
    }

    const data: ContextCompactedData = {
      trigger: options.trigger,
      tokensBefore: before,
      tokensAfter: afterPrune,
    }
    if (options.reason) data.reason = options.reason
    if (plan.pruned) data.pruned = plan.pruned
    if (plan.summary) {
      data.summary = plan.summary.text
      data.keptFrom = plan.summary.keptFrom
      const after = historyAfterCompaction(session.events, {
        ...data,
        summary: plan.summary.text,
        pruned: [...pruned],
      })
      data.tokensAfter = this.estimate(session, request, [
        request.messages[0]!,
        ...this.leading(session, request),
        ...after,
      ])
      if (options.instructions !== undefined) data.instructions = options.instructions
      if (plan.summary.model !== undefined) data.model = plan.summary.model
      if (plan.summary.usage) data.usage = plan.summary.usage
    }
    session.append('context/compacted', data)
    this.measured.delete(session)
    await this.ctx.get('sessions')?.flush(session)
    await this.ctx.parallel('context/compacted', session, data)
    const result: CompactionResult = {
      tokensBefore: data.tokensBefore,
      tokensAfter: data.tokensAfter,
      pruned: plan.pruned?.length ?? 0,
      summarised: plan.summary !== undefined,
    }
    options.onCompaction?.({ phase: 'end', trigger: options.trigger, result })
    return result
  }

  /** True when `request` holds more than the user's last message, so compaction can shrink it. */
  canCompact(session: Session, request: ModelRequest): boolean {
    const leading = 1 + this.leading(session, request).length
    return request.messages.length - leading > 1
  }

  /** The summary call's output budget for a window (what `max_tokens` it is sent with). */
  summaryOutputTokens(window: number): number {
    return summaryOutputTokens(window)
  }

  /** Loads the summary call's images from the session's store; a failure is the compaction's. */
  private async readyImages(session: Session, request: ModelRequest, defaultModel: string): Promise<void> {
    try {
      await readyRequestImages(this.ctx.get('sessions'), session.id, request, defaultModel)
    } catch (error) {
      throw new DshError(`compaction failed: ${errorMessage(error)}`, ContextErrorCode.SummaryFailed, {
        cause: error,
      })
    }
  }

  private room(window: number, tokens: number): number {
    return Math.floor(window - tokens - window * OUTPUT_MARGIN_SHARE)
  }

  /** Estimated tokens of `request` with `messages` (system prompt first) in place of its own. */
  private estimate(session: Session, request: ModelRequest, messages: readonly ChatMessage[]): number {
    return Object.values(this.breakdown(session, { ...request, messages: [...messages] })).reduce(
      (sum, n) => sum + n,
      0,
    )
  }

  /** The project instructions message, when the request carries one after the system prompt. */
  private leading(session: Session, request: ModelRequest): ChatMessage[] {
    const second = request.messages[1]
    const instructions = lastInstructions(session)?.text
    return second?.role === 'user' && instructions !== undefined && second.content === instructions
      ? [second]
      : []
  }

  private breakdown(session: Session, request: ModelRequest): ContextBreakdown {
    const breakdown: ContextBreakdown = {
      system: 0,
      tools: estimateTools(request.tools),
      instructions: 0,
      messages: 0,
      toolOutputs: 0,
      reasoning: 0,
    }
    const messages = request.messages
    const first = messages[0]
    let start = 0
    if (first?.role === 'system') {
      breakdown.system = estimateTextTokens(first.content)
      start = 1
    }
    const leading = this.leading(session, request)
    if (leading.length > 0) {
      breakdown.instructions = messageTotal(leading[0]!)
      start += 1
    }
    for (let i = start; i < messages.length; i++) {
      const tokens = estimateMessage(messages[i]!)
      breakdown.messages += tokens.text
      breakdown.toolOutputs += tokens.toolOutput
      breakdown.reasoning += tokens.reasoning
    }
    return breakdown
  }
}

/**
 * Call ids earlier compactions pruned that the history may still hold: those named back to
 * the tail the last summary kept. A prune before that tail only names results before it
 * (a prune names results already logged), which no history or tail holds any more, so the
 * log before it is never read.
 */
function prunedCalls(session: Session): Set<string> {
  const events = session.events
  const pruned = new Set<string>()
  let stop = 0
  let summarised = false
  for (let i = events.length - 1; i >= stop; i--) {
    const event = events[i]!
    if (event.type !== 'context/compacted') continue
    const data = event.data as ContextCompactedData
    for (const callId of data.pruned ?? []) pruned.add(callId)
    if (data.summary !== undefined && !summarised) {
      summarised = true
      stop = Math.min(i, Math.max(0, data.keptFrom ?? i))
    }
  }
  return pruned
}

function sharesPrefix(messages: readonly ChatMessage[], prefix: readonly ChatMessage[]): boolean {
  if (prefix.length > messages.length) return false
  for (let i = 0; i < prefix.length; i++) if (!sameMessage(messages[i]!, prefix[i]!)) return false
  return true
}

/** History messages are shared objects; the system prompt and instructions are rebuilt per request. */
function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  return (
    a === b || ((a.role === 'system' || a.role === 'user') && a.role === b.role && a.content === b.content)
  )
}
