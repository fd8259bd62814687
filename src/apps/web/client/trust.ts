// The project-trust question in the browser: the server asks once per folder (through the
// one trust service) and every tab shows the question over its live stream; the first
// answer counts. A yes is remembered in the harness home, as dsh chat remembers it.

import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { LiveMessage, TrustQuestion } from '../types.js'
import { ApiError, api } from './api.js'
import { openLiveSource } from './live-source.js'

let questions: readonly TrustQuestion[] = []
const listeners = new Set<() => void>()

function update(next: readonly TrustQuestion[]): void {
  questions = next
  for (const listener of listeners) listener()
}

/** Takes a live message if it is about trust; answers whether it was. */
export function takeTrustMessage(message: LiveMessage): boolean {
  if (message.kind === 'trust') {
    update([...questions.filter((q) => q.id !== message.question.id), message.question])
    return true
  }
  if (message.kind === 'trust-done') {
    update(questions.filter((q) => q.id !== message.id))
    return true
  }
  return false
}

/**
 * The sessions page's stream: trust questions asked while no session is open (a new
 * session's folder). Answers whether the stream is lost (the server stopped); a question
 * shown then can no longer be answered, so it goes.
 */
export function useTrustStream(): boolean {
  const [lost, setLost] = useState(false)
  useEffect(() => {
    const source = openLiveSource(
      api.trustLiveUrl(),
      (data) => takeTrustMessage(JSON.parse(data) as LiveMessage),
      () => {
        setLost(true)
        update([])
      },
    )
    return () => source.close()
  }, [])
  return lost
}

/** The dialog over every page while a question waits. */
export function TrustDialog(): VNode | null {
  const [, setVersion] = useState(0)
  const [error, setError] = useState<string | undefined>(undefined)
  useEffect(() => {
    const listener = () => setVersion((n) => n + 1)
    listeners.add(listener)
    return () => {
      listeners.delete(listener)
    }
  }, [])
  const question = questions[0]
  if (!question) return null
  const answer = (trust: boolean) => {
    setError(undefined)
    api.answerTrust(question.id, trust).then(
      () => update(questions.filter((q) => q.id !== question.id)),
      (failure: unknown) => {
        // Answered elsewhere meanwhile: the question is gone either way.
        if (failure instanceof ApiError && failure.status === 404)
          update(questions.filter((q) => q.id !== question.id))
        else setError(failure instanceof Error ? failure.message : String(failure))
      },
    )
  }
  return html`<div class="overlay">
    <div class="dialog trust-dialog" role="alertdialog" aria-label="Trust this project folder?">
      <h2>Trust this project folder?</h2>
      <code class="trust-folder">${question.folder}</code>
      <div>Trusting it loads the project's own configuration:</div>
      <ul class="trust-brings">${question.brings.map((item) => html`<li>${item}</li>`)}</ul>
      <div class="dim">A yes is remembered for this folder and the folders inside it (as in dsh chat); a no holds until dsh web restarts. The project's deny rules apply either way.</div>
      ${error !== undefined ? html`<p class="error" role="alert">${error}</p>` : null}
      <div class="dialog-actions">
        <button class="trust-yes" onClick=${() => answer(true)}>Trust this folder</button>
        <button class="trust-no" onClick=${() => answer(false)}>Don't trust</button>
      </div>
    </div>
  </div>`
}
