// The prompt box: multi-line (Enter sends, Shift+Enter adds a line), a stop button while
// a turn runs, the model and effort pickers of the hosted agent, and images (paste, drop,
// or the file button) shown as thumbnails until they go out with the prompt.

import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import type { ModelsResponse, SessionState } from '../types.js'
import { ApiError, api } from './api.js'
import { ACCEPTED_TYPES, filesOf, Thumbnails, useAttachments } from './attachments.js'

let modelsOnce: Promise<ModelsResponse> | undefined
/** The model choices, asked once per page; a failed request is asked again next time. */
export function models(): Promise<ModelsResponse> {
  modelsOnce ??= api.models().catch((failure: unknown) => {
    modelsOnce = undefined
    throw failure
  })
  return modelsOnce
}

/** What the new-session dialog and the chat box say when the model choices could not be loaded. */
export function modelsFailure(failure: unknown): string {
  return `could not load the model choices: ${failure instanceof Error ? failure.message : String(failure)}`
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
    models().then(setChoices, (failure: unknown) =>
      // Without the choices the model menu stays away; prompts still go out.
      onError(modelsFailure(failure)),
    )
  }, [])

  const fail = (failure: unknown) => onError(failure instanceof ApiError ? failure.message : String(failure))
  const attachments = useAttachments(onError)
  const fileInput = useRef<HTMLInputElement>(null)
  const send = () => {
    const prompt = text
    const images = attachments.list
    if (prompt.trim() === '' || state.busy) return
    setText('')
    attachments.clear()
    onSend()
    attachments
      .encode(images)
      .then((encoded) => api.prompt(id, prompt, encoded))
      .catch((failure: unknown) => {
        // Nothing was sent: the text and the images come back for another try.
        setText(prompt)
        attachments.add(images.map((image) => image.file))
        fail(failure)
      })
  }
  const onPaste = (event: ClipboardEvent) => {
    const files = filesOf(event.clipboardData)
    if (files.length === 0) return // text: the textarea takes it
    event.preventDefault()
    attachments.add(files)
  }
  // A file dropped anywhere on the page is attached (the browser would otherwise open it
  // in place of the session).
  const add = useRef(attachments.add)
  add.current = attachments.add
  useEffect(() => {
    const over = (event: DragEvent) => {
      if (event.dataTransfer?.types.includes('Files')) event.preventDefault()
    }
    const drop = (event: DragEvent) => {
      const files = filesOf(event.dataTransfer)
      if (files.length === 0) return
      event.preventDefault()
      add.current(files)
    }
    window.addEventListener('dragover', over)
    window.addEventListener('drop', drop)
    return () => {
      window.removeEventListener('dragover', over)
      window.removeEventListener('drop', drop)
    }
  }, [])
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
    <${Thumbnails} attachments=${attachments} />
    <textarea
      class="prompt"
      rows="3"
      placeholder=${state.hosted ? 'Message the agent (Enter sends, Shift+Enter adds a line)' : 'Sending resumes this session here (read-only while another process writes it)'}
      value=${text}
      onInput=${(event: Event) => setText((event.target as HTMLTextAreaElement).value)}
      onKeyDown=${onKeyDown}
      onPaste=${onPaste}
    ></textarea>
    <div class="chat-actions">
      <input class="attach-input" type="file" hidden multiple accept=${ACCEPTED_TYPES.join(',')} ref=${fileInput}
        onChange=${(event: Event) => {
          const input = event.target as HTMLInputElement
          attachments.add([...(input.files ?? [])])
          input.value = ''
        }} />
      <button class="attach" title="Attach images (or paste or drop them)" onClick=${() => fileInput.current?.click()}>Image…</button>
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
