// The live part of the session page: the streamed answer, running tool cards, approvals,
// a compaction in progress and "working…". It renders on its own for every streamed delta (the transcript does not),
// and the answer becomes sanitized markdown while it streams: re-rendered at most every
// MARKDOWN_EVERY_MS, with the text that arrived since shown at once as plain text after it.

import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import type { PendingApproval } from '../types.js'
import { api } from './api.js'
import { diffView, toolCard } from './items.js'
import { renderMarkdown } from './markdown.js'
import type { LiveTurn } from './transcript.js'

/** The shortest time between two markdown renders of a streaming answer, in ms. */
export const MARKDOWN_EVERY_MS = 80
/** A render may take at most this share of the time between renders (long answers render less often). */
const MARKDOWN_BUSY_SHARE = 0.25

type Act = (work: () => Promise<unknown>) => void

export function LiveView(props: {
  live: LiveTurn
  approvals: readonly PendingApproval[]
  busy: boolean
  act: Act
}): VNode {
  const { live, approvals, busy, act } = props
  const [, setVersion] = useState(0)
  useEffect(() => live.subscribe(() => setVersion((n) => n + 1)), [live])
  return html`<div class="live">
    ${live.reasoning !== '' || live.text !== '' ? html`<${StreamingAnswer} text=${live.text} reasoning=${live.reasoning} />` : null}
    ${[...live.tools.values()].map((tool) => toolCard(tool, true))}
    ${approvals.map((approval) => approvalCard(approval, act))}
    ${
      live.compacting !== undefined
        ? html`<div class="working compacting">compacting the context (${live.compacting.trigger})…</div>`
        : busy && live.text === '' && live.tools.size === 0 && approvals.length === 0
          ? html`<div class="working">working…</div>`
          : null
    }
  </div>`
}

interface Rendered {
  /** The text the markdown was made from (a prefix of the streamed text). */
  source: string
  html: string
  /** When it was made and how long that took, in ms (performance.now()). */
  at: number
  costMs: number
}

const NOTHING: Rendered = { source: '', html: '', at: Number.NEGATIVE_INFINITY, costMs: 0 }

function StreamingAnswer(props: { text: string; reasoning: string }): VNode {
  const { text, reasoning } = props
  const latest = useRef(text)
  latest.current = text
  const rendered = useRef(NOTHING)
  const timer = useRef<number | undefined>(undefined)
  const [, setRendered] = useState(0)
  // A new answer (the text no longer continues the rendered one) starts over.
  if (!text.startsWith(rendered.current.source)) rendered.current = NOTHING
  const tail = text.slice(rendered.current.source.length)

  useEffect(() => {
    if (tail === '' || timer.current !== undefined) return
    const { at, costMs } = rendered.current
    const everyMs = Math.max(MARKDOWN_EVERY_MS, costMs / MARKDOWN_BUSY_SHARE)
    timer.current = window.setTimeout(
      () => {
        timer.current = undefined
        const started = performance.now()
        const source = latest.current
        const made = renderMarkdown(source)
        rendered.current = { source, html: made, at: started, costMs: performance.now() - started }
        setRendered((n) => n + 1)
      },
      Math.max(0, at + everyMs - performance.now()),
    )
  })
  useEffect(() => () => window.clearTimeout(timer.current), [])

  return html`<div class="msg assistant streaming">
    ${
      reasoning !== ''
        ? html`<details class="reasoning" open=${text === ''}><summary>reasoning</summary><div class="reasoning-text">${reasoning}</div></details>`
        : null
    }
    ${rendered.current.html !== '' ? html`<div class="markdown live-markdown" dangerouslySetInnerHTML=${{ __html: rendered.current.html }}></div>` : null}
    ${tail !== '' ? html`<div class="text live-text">${tail}</div>` : null}
  </div>`
}

function approvalCard(approval: PendingApproval, act: Act): VNode {
  return html`<div class="approval" role="alertdialog" data-approval=${approval.id}>
    <div class="approval-head">Allow <b>${approval.tool}</b> to run?${
      approval.callerSessionId !== approval.sessionId ? html` <span class="dim">(sub-agent)</span>` : null
    }</div>
    ${approval.diff ? diffView(approval.diff) : html`<pre class="approval-command">${approval.command}</pre>`}
    <div class="approval-reason">${approval.reason}</div>
    <div class="approval-actions">
      <button class="approve" onClick=${() => act(() => api.answer(approval.id, true))}>Approve</button>
      <button class="deny" onClick=${() => act(() => api.answer(approval.id, false))}>Deny</button>
    </div>
  </div>`
}
