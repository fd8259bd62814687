// How each transcript item looks: messages (assistant text as sanitized markdown,
// reasoning collapsed), tool calls as cards (command, exit code, output collapsed after a
// few lines, diffs of edits, links to sub-agent sessions), hook decisions, turn usage,
// compaction boundaries (a divider with the summary collapsed under it).
// Everything from the model, tools or files is text or sanitized markdown.

import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { formatCompactionLine } from '../../../context/format.js'
import type { ImageRef } from '../../../llm/types.js'
import type { ContextCompactedData, HookResultData } from '../../../session/types.js'
import { cacheHitPercent, formatCost } from '../../../usage/format.js'
import type { UsageTotals } from '../../../usage/totals.js'
import { renderMarkdown } from './markdown.js'
import { StoredImage } from './stored-image.js'
import { DIFF_TOOLS, diffLines, type Item, splitDiagnostics, type ToolCard } from './transcript.js'

/** Output lines shown before a tool card's "show all". */
export const OUTPUT_LINES = 12

const markdownCache = new Map<string, string>()

/** Sanitized HTML for model text, cached (a long session re-renders the same answers while scrolling). */
function markdown(text: string): string {
  let cached = markdownCache.get(text)
  if (cached === undefined) {
    cached = renderMarkdown(text)
    if (markdownCache.size > 2000) markdownCache.clear()
    markdownCache.set(text, cached)
  }
  return cached
}

/** What an item's buttons do: `forkAt(n)` starts a new session from the history up to turn n. */
export interface ItemActions {
  forkAt?: (turn: number) => void
}

/** A prompt's images as thumbnails, each a link to the full image (fetched with the bearer header: stored-image.ts). */
function promptImages(images: readonly ImageRef[], sessionId: string): VNode | null {
  if (images.length === 0) return null
  return html`<div class="prompt-images">
    ${images.map((image) => html`<${StoredImage} key=${image.sha256} sessionId=${sessionId} image=${image} />`)}
  </div>`
}

/** `sessionId`: whose stored images a prompt's thumbnails come from. */
export function renderItem(item: Item, sessionId = '', actions: ItemActions = {}): VNode {
  switch (item.kind) {
    case 'user':
      return html`<div class="msg user"><div class="who">${item.origin === 'hook' ? 'hook' : 'you'}</div><div class="text">${item.text}</div>${promptImages(item.images, sessionId)}</div>`
    case 'assistant':
      return assistant(item.text, item.reasoning)
    case 'tool':
      return toolCard(item.tool, false, sessionId)
    case 'hook':
      return hook(item.hook)
    case 'turn-end':
      return turnEnd(item.turn, item.reason, item.error, item.usage, item.currency, actions.forkAt)
    case 'notice':
      return html`<div class="notice">${item.text}</div>`
    case 'compaction':
      return compaction(item.compaction)
  }
}

/** A committed answer (the streaming one is live-view.ts's). */
function assistant(text: string, reasoning: string): VNode {
  return html`<div class="msg assistant">
    ${
      reasoning !== ''
        ? html`<details class="reasoning"><summary>reasoning</summary><div class="reasoning-text">${reasoning}</div></details>`
        : null
    }
    <div class="markdown" dangerouslySetInnerHTML=${{ __html: markdown(text) }}></div>
  </div>`
}

/** `sessionId`: whose stored images a result's thumbnails come from. */
export function toolCard(tool: ToolCard, running: boolean, sessionId = ''): VNode {
  const result = tool.result
  // A call whose turn is still open and has no result yet is running or awaiting approval.
  const status =
    running || (tool.open && result === undefined)
      ? html`<span class="badge running">running</span>`
      : result === undefined
        ? html`<span class="badge">no result</span>`
        : result.isError
          ? html`<span class="badge error">error</span>`
          : tool.exitCode !== undefined
            ? html`<span class=${`badge ${tool.exitCode === 0 ? 'ok' : 'error'}`}>exit ${tool.exitCode}</span>`
            : html`<span class="badge ok">done</span>`
  return html`<div class="tool" data-tool=${tool.name}>
    <div class="tool-head"><span class="tool-name">${tool.name}</span>${status}${
      tool.subSession !== undefined
        ? html`<a class="sub-link" href=${`#/session/${encodeURIComponent(tool.subSession)}`}>open sub-agent session</a>`
        : null
    }</div>
    <pre class="tool-command">${tool.command ?? prettyArguments(tool.arguments)}</pre>
    ${result !== undefined ? toolOutput(tool.name, result.content) : null}
    ${result !== undefined && sessionId !== '' ? promptImages(result.images, sessionId) : null}
  </div>`
}

function toolOutput(name: string, content: string): VNode {
  const diff = DIFF_TOOLS.has(name) ? diffLines(content) : []
  if (diff.length > 0) {
    const { diagnostics } = splitDiagnostics(content)
    return html`${diffView(diff)}${diagnostics ? html`<pre class="lsp-diagnostics">${diagnostics}</pre>` : null}`
  }
  const lines = content.split('\n')
  if (lines.length <= OUTPUT_LINES) return html`<pre class="tool-output">${content}</pre>`
  return html`<div class="tool-output-wrap">
    <pre class="tool-output">${lines.slice(0, OUTPUT_LINES).join('\n')}</pre>
    <details class="more"><summary>show all ${lines.length} lines</summary><pre class="tool-output">${lines
      .slice(OUTPUT_LINES)
      .join('\n')}</pre></details>
  </div>`
}

/**
 * Diff lines as rows: a gutter with the sign (+, -, or blank for context) and the text, each
 * its own block, so no line runs into the next (template text around an expression is trimmed).
 */
export function diffView(lines: readonly string[]): VNode {
  return html`<div class="diff" role="figure">${lines.map((line) => {
    const kind = diffClass(line)
    const marked = kind === 'd-add' || kind === 'd-del' || kind === 'd-ctx'
    const sign = marked ? line.slice(0, 1).trim() : ''
    const text = marked ? line.slice(1) : line
    return html`<div class=${`d-line ${kind}`}><span class="d-sign">${sign}</span><span class="d-text">${text}</span></div>`
  })}</div>`
}

function diffClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return 'd-file'
  if (line.startsWith('@@')) return 'd-hunk'
  if (line.startsWith('+')) return 'd-add'
  if (line.startsWith('-')) return 'd-del'
  return 'd-ctx'
}

function hook(data: HookResultData): VNode {
  const reason = data.reason ?? (data.stderr && data.decision !== 'none' ? data.stderr : '')
  return html`<div class=${`hook decision-${data.decision}`}>
    <span class="badge">hook ${data.event}</span> <span class="hook-decision">${data.decision}</span>
    <code class="hook-command">${data.command}</code>${reason ? html` <span class="hook-reason">— ${reason}</span>` : null}
  </div>`
}

/** The boundary line, how it came about, and the summary the model continues from (collapsed). */
function compaction(data: ContextCompactedData): VNode {
  const how = [
    data.trigger === 'auto'
      ? `auto${data.reason === 'overflow' ? ' (the server said the context was too long)' : ''}`
      : 'manual',
    (data.pruned?.length ?? 0) > 0 ? `${data.pruned!.length} tool outputs pruned` : '',
    data.summary !== undefined ? 'summarised' : '',
  ].filter((part) => part !== '')
  return html`<div class=${`compaction trigger-${data.trigger}`} role="separator">
    <div class="compaction-line"><span class="compaction-text">${formatCompactionLine(data)}</span> <span class="compaction-how">${how.join(' · ')}</span></div>
    ${data.instructions !== undefined ? html`<div class="compaction-instructions">instructions: ${data.instructions}</div>` : null}
    ${
      data.summary !== undefined
        ? html`<details class="compaction-summary"><summary>summary</summary><div class="markdown" dangerouslySetInnerHTML=${{ __html: markdown(data.summary) }}></div></details>`
        : null
    }
  </div>`
}

function turnEnd(
  turn: number,
  reason: string,
  error: string | undefined,
  usage: UsageTotals,
  currency: string,
  forkAt: ((turn: number) => void) | undefined,
): VNode {
  const cache = usage.inputTokens > 0 ? ` · cache ${cacheHitPercent(usage)}` : ''
  return html`<div class=${`turn-end reason-${reason}`}>
    turn ${turn} · ${reason}${error ? ` — ${error}` : ''} · ${formatTokens(usage.inputTokens)} in / ${formatTokens(usage.outputTokens)} out${cache} · <span class="turn-cost" title="estimated from the price table">${formatCost(usage.cost, currency)}</span>
    ${forkAt ? html` <button class="fork-here" title=${`a new session with turns 1 to ${turn}`} onClick=${() => forkAt(turn)}>fork from here</button>` : null}
  </div>`
}

export function formatTokens(count: number): string {
  if (count >= 1_000_000) return `${(count / 1_000_000).toFixed(1)}M`
  if (count >= 1000) return `${(count / 1000).toFixed(1)}k`
  return String(count)
}

function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}
