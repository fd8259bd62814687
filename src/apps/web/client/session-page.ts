// The session page: the transcript from the log (windowed), the live part of a running
// turn, approvals, the context bar (window fill, Compact), and the chat box. Live messages come over server-sent events; two tabs
// on one session see the same stream. A session not hosted here is read-only and tailed.
// A lost stream (the server stopped) is said once, and nothing shows as running here after it.

import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { toTerminalId } from '../../../core/terminal-text.js'
import type { LiveMessage, PendingApproval, SessionResponse, SessionState, TerminalView } from '../types.js'
import { ApiError, api } from './api.js'
import { ChatBox } from './chat-box.js'
import { ContextBar } from './context-bar.js'
import { renderItem } from './items.js'
import { type LiveSourceHandle, LOST_NOTICE, openLiveSource } from './live-source.js'
import { LiveView } from './live-view.js'
import { TerminalsPanel } from './terminals-panel.js'
import { type Item, LiveTurn, TranscriptModel } from './transcript.js'
import { takeTrustMessage } from './trust.js'
import { VirtualList } from './virtual-list.js'

interface Loaded {
  response: SessionResponse
  model: TranscriptModel
  live: LiveTurn
}

export function SessionPage(props: { id: string }): VNode {
  const { id } = props
  const [loaded, setLoaded] = useState<Loaded | undefined>(undefined)
  const [state, setState] = useState<SessionState | undefined>(undefined)
  const [approvals, setApprovals] = useState<PendingApproval[]>([])
  const [terminals, setTerminals] = useState<TerminalView[]>([])
  const [error, setError] = useState<string | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const [lost, setLost] = useState(false)
  const [, setVersion] = useState(0)
  const [generation, setGeneration] = useState(0)

  useEffect(() => {
    let closed = false
    let source: LiveSourceHandle | undefined
    // Preact batches state changes to a microtask: a message reaches the DOM in the same task
    // it arrived in, and many messages of one task render once.
    const redraw = () => setVersion((n) => n + 1)
    api
      .session(id)
      .then((response) => {
        if (closed) return
        const model = new TranscriptModel(response.prices)
        for (const event of response.events) model.add(event)
        const live = new LiveTurn()
        setLoaded({ response, model, live })
        setState(response.state)
        setApprovals(response.state.approvals)
        setError(undefined)
        setLost(false)
        const onLost = () => {
          setLost(true)
          setState((known) => known && { ...known, busy: false, compacting: false, approvals: [] })
          setApprovals([])
        }
        source = openLiveSource(
          api.liveUrl(id, model.nextSeq),
          (text) => {
            const data = JSON.parse(text) as LiveMessage
            if (takeTrustMessage(data)) return
            switch (data.kind) {
              case 'event':
                if (data.event.seq > model.nextSeq) {
                  // Something was missed (the stream reconnected): read the log again.
                  source?.close()
                  setGeneration((n) => n + 1)
                  return
                }
                model.add(data.event)
                live.committed(data.event)
                break
              case 'output':
                // Only the live view renders a streamed delta; the transcript stays as it is.
                live.handle(data.output)
                return
              case 'state':
                setState(data.state)
                setApprovals(data.state.approvals)
                break
              case 'approval':
                setApprovals((list) => [...list.filter((a) => a.id !== data.approval.id), data.approval])
                break
              case 'approval-done':
                setApprovals((list) => list.filter((a) => a.id !== data.id))
                break
              case 'error':
                setNotice(data.message)
                break
              case 'terminal':
                setTerminals((list) => upsertTerminal(list, data.terminal))
                break
              case 'terminal-closed':
                setTerminals((list) => list.filter((view) => view.id !== data.id))
                break
            }
            redraw()
          },
          onLost,
        )
      })
      .catch((failure: unknown) => setError(failure instanceof Error ? failure.message : String(failure)))
    return () => {
      closed = true
      source?.close()
    }
  }, [id, generation])

  if (error !== undefined)
    return html`<div class="page"><p class="error">${error}</p><a href="#/">back to sessions</a></div>`
  if (!loaded || !state) return html`<div class="page"><p class="loading">loading…</p></div>`
  const { response, model, live } = loaded
  const header = response.header

  const act = (work: () => Promise<unknown>) => {
    setNotice(undefined)
    work().catch((failure: unknown) =>
      setNotice(failure instanceof ApiError ? failure.message : String(failure)),
    )
  }
  const fork = (atTurn?: number) =>
    act(async () => {
      const { id: child } = await api.fork(id, atTurn)
      location.hash = `#/session/${encodeURIComponent(child)}`
    })

  // The title is stored as a `session/title` event; the sessions page lists it.
  const rename = () => {
    const title = window.prompt('New title for this session')
    if (title === null) return
    act(async () => {
      await api.rename(id, title)
      setNotice(`renamed: ${title.trim()}`)
    })
  }

  const footer = html`<${LiveView} live=${live} approvals=${approvals} busy=${state.busy} act=${act} />`

  return html`<div class="page session-page">
    <div class="session-bar">
      <a href="#/" class="back">← sessions</a>
      <span class="session-id" title=${toTerminalId(header.id)}>${toTerminalId(header.id)}</span>
      <span class="folder" title=${header.cwd ?? ''}>${header.cwd ?? '(no folder)'}</span>
      ${
        header.parentSession !== undefined
          ? html`<a class="parent" href=${`#/session/${encodeURIComponent(header.parentSession)}`}>parent session</a>`
          : null
      }
      ${
        lost
          ? html`<span class="mode lost">connection lost</span>`
          : html`<span class=${`mode ${state.hosted ? 'hosted' : 'readonly'}`}>${state.hosted ? (state.busy ? 'running here' : 'open here') : 'read-only · live tail'}</span>`
      }
      ${state.hosted || lost ? null : html`<button class="resume" onClick=${() => act(() => api.resume(id))}>Resume here</button>`}
      ${state.hosted && !state.busy && !lost ? html`<button class="release" onClick=${() => act(() => api.release(id))}>Release</button>` : null}
      <button class="rename" onClick=${rename}>Rename</button>
      <button class="fork" onClick=${() => fork()}>Fork</button>
    </div>
    <${ContextBar} id=${id} state=${state} act=${act} />
    <${TerminalsPanel} terminals=${terminals} />
    ${lost ? html`<div class="notice-bar lost" role="alert">${LOST_NOTICE}</div>` : null}
    ${notice !== undefined ? html`<div class="notice-bar" role="alert">${notice}</div>` : null}
    <${VirtualList}
      items=${model.items}
      keyOf=${(item: Item) => item.key}
      render=${(item: Item) => renderItem(item, id, { forkAt: fork })}
      estimatePx=${72}
      footer=${footer}
      itemsVersion=${model.version}
    />
    <${ChatBox} id=${id} state=${state} onSend=${() => setNotice(undefined)} onError=${setNotice} />
  </div>`
}

/** The list with `view` replacing the terminal of its id, or added at the end. */
function upsertTerminal(list: readonly TerminalView[], view: TerminalView): TerminalView[] {
  const index = list.findIndex((known) => known.id === view.id)
  if (index < 0) return [...list, view]
  return list.map((known, at) => (at === index ? view : known))
}
