// The prompt box: multi-line (Enter sends, Shift+Enter adds a line), a stop button while
// a turn runs, and the model and effort pickers of the hosted agent.

import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { ModelsResponse, SessionState } from '../types.js'
import { ApiError, api } from './api.js'

let modelsOnce: Promise<ModelsResponse> | undefined
export function models(): Promise<ModelsResponse> {
  modelsOnce ??= api.models()
  return modelsOnce
}

export function ChatBox(props: {
  id: string
  state: SessionState
  /** A prompt goes out: the page's notice of the last action ends. */
  onSend: () => void
  onError: (message: string) => void
}): VNode {
  const { id, state, onSend, onError } = props
  const [text, setText] = useState('')
  const [choices, setChoices] = useState<ModelsResponse | undefined>(undefined)
  useEffect(() => {
    void models().then(setChoices)
  }, [])

  const fail = (failure: unknown) => onError(failure instanceof ApiError ? failure.message : String(failure))
  const send = () => {
    const prompt = text
    if (prompt.trim() === '' || state.busy) return
    setText('')
    onSend()
    api.prompt(id, prompt).catch((failure: unknown) => {
      setText(prompt)
      fail(failure)
    })
  }
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault()
      send()
    }
  }
  const pick = (model: string, effort: string) => api.setModel(id, model, effort).catch(fail)
  const model = state.model ?? choices?.defaultModel ?? ''
  const effort = state.effort ?? choices?.defaultEffort ?? ''
  const modelNames = choices ? [...new Set([...(model ? [model] : []), ...choices.models])] : []

  return html`<div class="chat-box">
    <textarea
      class="prompt"
      rows="3"
      placeholder=${state.hosted ? 'Message the agent (Enter sends, Shift+Enter adds a line)' : 'Sending resumes this session here (read-only while another process writes it)'}
      value=${text}
      onInput=${(event: Event) => setText((event.target as HTMLTextAreaElement).value)}
      onKeyDown=${onKeyDown}
    ></textarea>
    <div class="chat-actions">
      ${
        state.hosted && choices
          ? html`<label>model <select class="model-picker" value=${model} onChange=${(event: Event) => pick((event.target as HTMLSelectElement).value, effort)}>
              ${modelNames.map((name) => html`<option value=${name}>${name}</option>`)}
            </select></label>
            <label>effort <select class="effort-picker" value=${effort} onChange=${(event: Event) => pick(model, (event.target as HTMLSelectElement).value)}>
              ${choices.efforts.map((name) => html`<option value=${name}>${name}</option>`)}
            </select></label>`
          : null
      }
      ${
        state.busy
          ? html`<button class="stop" onClick=${() => api.stop(id).catch(fail)}>Stop</button>`
          : html`<button class="send" onClick=${send} disabled=${text.trim() === ''}>Send</button>`
      }
    </div>
  </div>`
}
