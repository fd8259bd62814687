// Project-trust questions put to the browser: when a session's folder is an untrusted
// project that would bring hooks, MCP servers, allow rules or skills, the one trust
// service (src/trust) asks here, once per folder; every open tab shows the question.

import { randomUUID } from 'node:crypto'
import { DshError } from '../../core/errors.js'
import { WebErrorCode } from './errors.js'
import type { LiveMessage, TrustQuestion } from './types.js'

interface Waiting {
  question: TrustQuestion
  resolve(trusted: boolean): void
  reject(error: Error): void
}

export class TrustQuestions {
  private readonly waiting = new Map<string, Waiting>()

  /** `broadcast` reaches every tab (the sessions page's stream and each session's). */
  constructor(private readonly broadcast: (message: LiveMessage) => void) {}

  pending(): TrustQuestion[] {
    return [...this.waiting.values()].map((waiting) => waiting.question)
  }

  /** The trust service's `ask`: resolves with the browser's answer (it waits for a tab). */
  ask(folder: string, brings: readonly string[]): Promise<boolean> {
    const question: TrustQuestion = { id: randomUUID(), folder, brings: [...brings] }
    return new Promise<boolean>((resolve, reject) => {
      this.waiting.set(question.id, { question, resolve, reject })
      this.broadcast({ kind: 'trust', question })
    })
  }

  /** The browser's answer; false when that question is no longer waiting. */
  answer(id: string, trusted: boolean): boolean {
    const waiting = this.waiting.get(id)
    if (!waiting) return false
    this.waiting.delete(id)
    this.broadcast({ kind: 'trust-done', id })
    waiting.resolve(trusted)
    return true
  }

  /**
   * The server stops: open questions fail, so the folder stays untrusted now (fail closed)
   * without that counting as a remembered "no".
   */
  cancelAll(): void {
    for (const waiting of this.waiting.values())
      waiting.reject(
        new DshError('the web server stopped before the trust question was answered', WebErrorCode.Closed),
      )
    this.waiting.clear()
  }
}
