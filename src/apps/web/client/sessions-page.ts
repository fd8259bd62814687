// The sessions page: every stored session of the configured backend, searchable by
// title and text (server side), filtered by folder, status and date; open, resume, fork,
// remove (after a confirm step), and a new-session dialog with a folder field.

import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { formatCost } from '../../../usage/format.js'
import type { SessionRow, SessionsResponse } from '../types.js'
import { ApiError, api } from './api.js'
import { models, modelsFailure } from './chat-box.js'
import { formatTokens } from './items.js'
import { LOST_NOTICE } from './live-source.js'
import { useTrustStream } from './trust.js'

const DAY_MS = 24 * 60 * 60 * 1000
const DATES: Record<string, number> = {
  any: Number.POSITIVE_INFINITY,
  day: DAY_MS,
  week: 7 * DAY_MS,
  month: 30 * DAY_MS,
}

export function SessionsPage(): VNode {
  const [query, setQuery] = useState('')
  const [data, setData] = useState<SessionsResponse | undefined>(undefined)
  const [folder, setFolder] = useState('')
  const [status, setStatus] = useState('')
  const [date, setDate] = useState('any')
  // A failed list load clears itself on the next good load; an action's notice (a
  // refused remove) stays until the next action, so a reload cannot hide it.
  const [loadError, setLoadError] = useState<string | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const [creating, setCreating] = useState(false)
  const [confirming, setConfirming] = useState<string | undefined>(undefined)
  const [reload, setReload] = useState(0)
  const lost = useTrustStream()

  useEffect(() => {
    const timer = setTimeout(() => {
      api
        .sessions(query)
        .then((response) => {
          setData(response)
          setLoadError(undefined)
        })
        .catch((failure: unknown) =>
          setLoadError(String(failure instanceof Error ? failure.message : failure)),
        )
    }, 150)
    return () => clearTimeout(timer)
  }, [query, reload])

  const act = (work: () => Promise<unknown>) => {
    setNotice(undefined)
    return work().catch((failure: unknown) =>
      setNotice(failure instanceof ApiError ? failure.message : String(failure)),
    )
  }
  const remove = (id: string) =>
    act(async () => {
      setConfirming(undefined)
      const { removed, refused } = await api.remove(id)
      const gone = new Set(removed)
      setData((current) =>
        current ? { ...current, sessions: current.sessions.filter((row) => !gone.has(row.id)) } : current,
      )
      if (refused.length > 0) setNotice(refused.map((refusal) => refusal.message).join('; '))
      setReload((n) => n + 1)
    })
  const rowActions: RowActions = { act, confirming, confirm: setConfirming, remove }
  const rows = data?.sessions ?? []
  const folders = [...new Set(rows.map((row) => row.cwd ?? ''))].sort()
  const now = Date.now()
  const shown = rows.filter(
    (row) =>
      (folder === '' || (row.cwd ?? '') === folder) &&
      (status === '' || row.status === status) &&
      now - row.updatedAt <= DATES[date]!,
  )

  return html`<div class="page sessions-page">
    <div class="toolbar">
      <input class="search" type="search" placeholder="Search title and text" value=${query} onInput=${(e: Event) => setQuery((e.target as HTMLInputElement).value)} />
      <select class="filter-folder" value=${folder} onChange=${(e: Event) => setFolder((e.target as HTMLSelectElement).value)}>
        <option value="">all folders</option>
        ${folders.map((name) => html`<option value=${name}>${name || '(no folder)'}</option>`)}
      </select>
      <select class="filter-status" value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value)}>
        <option value="">any status</option>
        ${['running', 'hosted', 'live', 'interrupted', 'idle'].map((name) => html`<option value=${name}>${name}</option>`)}
      </select>
      <select class="filter-date" value=${date} onChange=${(e: Event) => setDate((e.target as HTMLSelectElement).value)}>
        <option value="any">any time</option><option value="day">last 24 hours</option>
        <option value="week">last 7 days</option><option value="month">last 30 days</option>
      </select>
      <button class="new-session" onClick=${() => setCreating(true)}>New session</button>
    </div>
    ${[lost ? LOST_NOTICE : undefined, loadError, notice].map((text) => (text !== undefined ? html`<div class="notice-bar" role="alert">${text}</div>` : null))}
    ${creating ? html`<${NewSessionDialog} onClose=${() => setCreating(false)} />` : null}
    <table class="sessions">
      <thead><tr><th>Title</th><th>Folder</th><th>Status</th><th>Turns</th><th>Tokens</th><th>Cost</th><th>Updated</th><th></th></tr></thead>
      <tbody>
        ${shown.map((row) => sessionRow(row, data?.currency ?? '', now, rowActions))}
      </tbody>
    </table>
    ${data && shown.length === 0 ? html`<p class="empty">no sessions${rows.length > 0 ? ' match' : ' yet'}</p>` : null}
  </div>`
}

interface RowActions {
  act: (work: () => Promise<unknown>) => void
  /** The session whose removal waits for a second click. */
  confirming: string | undefined
  confirm: (id: string | undefined) => void
  remove: (id: string) => void
}

function sessionRow(row: SessionRow, currency: string, now: number, actions: RowActions): VNode {
  const { act } = actions
  const open = `#/session/${encodeURIComponent(row.id)}`
  const go = (id: string) => {
    location.hash = `#/session/${encodeURIComponent(id)}`
  }
  return html`<tr class="session-row" data-id=${row.id}>
    <td class="title"><a href=${open}>${row.title ?? '(no prompt yet)'}</a>${row.origin === 'subagent' ? html` <span class="badge">sub-agent</span>` : null}</td>
    <td class="folder" title=${row.cwd ?? ''}>${row.cwd ?? '-'}</td>
    <td><span class=${`status status-${row.status}`}>${row.status}</span></td>
    <td class="num">${row.turns}</td>
    <td class="num">${row.tokens === null ? '?' : formatTokens(row.tokens)}</td>
    <td class="num">${row.cost === null ? '?' : formatCost(row.cost, currency)}</td>
    <td class="updated" title=${new Date(row.updatedAt).toISOString()}>${age(now - row.updatedAt)}</td>
    <td><div class="actions">
      <a href=${open}>open</a>
      <button class="resume" onClick=${() =>
        act(async () => {
          await api.resume(row.id)
          go(row.id)
        })}>resume</button>
      <button class="fork" onClick=${() => act(async () => go((await api.fork(row.id)).id))}>fork</button>
      ${
        actions.confirming === row.id
          ? html`<span class="confirm-remove" role="alertdialog">remove it${row.origin === 'subagent' ? '' : ' and its sub-agent sessions'}?
              <button class="remove-yes" onClick=${() => actions.remove(row.id)}>yes, remove</button>
              <button class="remove-no" onClick=${() => actions.confirm(undefined)}>cancel</button></span>`
          : html`<button class="remove" onClick=${() => actions.confirm(row.id)}>remove</button>`
      }
    </div></td>
  </tr>`
}

function NewSessionDialog(props: { onClose: () => void }): VNode {
  const [cwd, setCwd] = useState('')
  const [model, setModel] = useState('')
  const [effort, setEffort] = useState('')
  const [names, setNames] = useState<{ models: string[]; efforts: string[] }>({ models: [], efforts: [] })
  // The fields appear once their defaults are known: a default arriving while someone
  // types would replace their folder or be prepended to it.
  const [ready, setReady] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  useEffect(() => {
    models().then(
      (choices) => {
        setCwd(choices.cwd)
        setModel(choices.defaultModel ?? choices.models[0] ?? '')
        setEffort(choices.defaultEffort)
        setNames({ models: choices.models, efforts: choices.efforts })
        setReady(true)
      },
      (failure: unknown) => {
        // Without the choices the server's defaults apply; the folder is still asked for.
        setError(modelsFailure(failure))
        setReady(true)
      },
    )
  }, [])
  // Starting may wait for the project-trust question; a second click must not start another.
  const [starting, setStarting] = useState(false)
  const create = (event: Event) => {
    event.preventDefault()
    if (starting || !ready) return
    setStarting(true)
    api
      .create(cwd.trim(), model, effort)
      .then(({ id }) => {
        props.onClose()
        location.hash = `#/session/${encodeURIComponent(id)}`
      })
      .catch((failure: unknown) => {
        setStarting(false)
        setError(failure instanceof Error ? failure.message : String(failure))
      })
  }
  const fields = ready
    ? html`<label>Folder <input class="folder-input" value=${cwd} onInput=${(e: Event) => setCwd((e.target as HTMLInputElement).value)} /></label>
    <label>Model <select value=${model} onChange=${(e: Event) => setModel((e.target as HTMLSelectElement).value)}>
      ${names.models.map((name) => html`<option value=${name}>${name}</option>`)}
    </select></label>
    <label>Effort <select value=${effort} onChange=${(e: Event) => setEffort((e.target as HTMLSelectElement).value)}>
      ${names.efforts.map((name) => html`<option value=${name}>${name}</option>`)}
    </select></label>`
    : html`<p class="loading">loading…</p>`
  return html`<form class="dialog new-session-dialog" onSubmit=${create}>
    <h2>New session</h2>
    ${fields}
    ${error !== undefined ? html`<p class="error" role="alert">${error}</p>` : null}
    <div class="dialog-actions"><button type="submit" class="create" disabled=${starting || !ready}>${starting ? 'Starting…' : 'Start'}</button><button type="button" onClick=${props.onClose}>Cancel</button></div>
  </form>`
}

function age(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 60) return `${seconds}s ago`
  if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`
  if (seconds < 86400) return `${Math.round(seconds / 3600)}h ago`
  return `${Math.round(seconds / 86400)}d ago`
}
