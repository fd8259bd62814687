// Write-behind coordinator: buffers one session's appended events and makes them
// durable on demand (the loop's checkpoints, `ctx.sessions.flush`, shutdown).

import type { Session } from '../session/session.js'
import type { SessionPersistence } from './persistence.js'

export class WriteBehindLog {
  private durableCount: number
  private backendId: string | undefined
  private chain: Promise<void> = Promise.resolve()

  /**
   * @param currentBackend asked at every flush, so a swapped backend takes over
   *   (it receives the header and the whole log before new events).
   * @param durable the backend that already holds `durableCount` events, if any.
   */
  constructor(
    private readonly session: Session,
    private readonly currentBackend: () => SessionPersistence | undefined,
    durable?: { backend: SessionPersistence; count: number },
  ) {
    this.durableCount = durable?.count ?? 0
    this.backendId = durable?.backend.instanceId
  }

  /** Events appended but not yet durable. */
  get pendingCount(): number {
    return this.session.length - this.durableCount
  }

  /** Resolves when every event appended before the call is durable. Flushes run one at a time. */
  flush(): Promise<void> {
    const next = this.chain.then(() => this.flushNow())
    // A failed flush rejects its caller; the next flush retries from the same durable point.
    this.chain = next.catch(() => {})
    return next
  }

  private async flushNow(): Promise<void> {
    const backend = this.currentBackend()
    if (!backend) return
    if (backend.instanceId !== this.backendId) {
      await backend.create({ ...this.session.header })
      this.backendId = backend.instanceId
      this.durableCount = 0
    }
    const end = this.session.length
    if (end === this.durableCount) return
    await backend.append(this.session.id, this.session.events.slice(this.durableCount, end))
    this.durableCount = end
  }
}
