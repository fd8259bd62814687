// The session page's context bar: how full the hosted agent's window is (updated after each
// step and each compaction) and the Compact button with its optional instructions, like
// `/compact focus on the tests`. Its failures go to the page's notice through `act`.

import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { useState } from 'preact/hooks'
import { contextPercent, formatContextUsage } from '../../../context/format.js'
import type { SessionState } from '../types.js'
import { api } from './api.js'

/** From this share of the window on, the meter is shown as a warning (automatic compaction is near). */
const FULL_PERCENT = 80

export function ContextBar(props: {
  id: string
  state: SessionState
  act: (work: () => Promise<unknown>) => void
}): VNode | null {
  const { id, state, act } = props
  const [instructions, setInstructions] = useState('')
  const [pending, setPending] = useState(false)
  if (!state.hosted) return null
  const compacting = pending || state.compacting
  const percent = state.context ? contextPercent(state.context) : undefined

  const compact = () =>
    act(async () => {
      setPending(true)
      try {
        await api.compact(id, instructions)
        setInstructions('')
      } finally {
        setPending(false)
      }
    })
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && !event.isComposing && !compacting && !state.busy) {
      event.preventDefault()
      compact()
    }
  }

  return html`<div class="context-bar">
    ${
      state.context
        ? html`<span
            class=${`context-meter${percent !== undefined && percent >= FULL_PERCENT ? ' full' : ''}`}
            data-percent=${percent ?? ''}
            title="tokens the next request would send, of the model's context window"
          >${formatContextUsage(state.context)}</span>`
        : null
    }
    <input
      class="compact-instructions"
      type="text"
      maxlength="10000"
      placeholder="compaction focus (optional), e.g. focus on the tests"
      value=${instructions}
      disabled=${compacting}
      onInput=${(event: Event) => setInstructions((event.target as HTMLInputElement).value)}
      onKeyDown=${onKeyDown}
    />
    <button
      class=${`compact${compacting ? ' running' : ''}`}
      onClick=${compact}
      disabled=${compacting || state.busy}
      title="summarise the history so far; the log keeps everything"
    >${compacting ? 'Compacting…' : 'Compact'}</button>
  </div>`
}
