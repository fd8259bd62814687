// Live channels: every browser tab on a session holds one server-sent-events stream; a
// channel fans a session's messages out to them. A session this server does not drive is
// tailed from the backend (read-only) while someone watches it.

import type { ServerResponse } from 'node:http'
import type { SessionPersistence } from '../../persistence/persistence.js'
import type { SessionEvent } from '../../session/types.js'
import type { LiveMessage } from './types.js'

/** How often a session written elsewhere is read again, in ms. */
export const TAIL_POLL_MS = 250
/** A comment line keeps idle streams open through proxies and lets dead ones be noticed. */
const KEEP_ALIVE_MS = 15_000

/** One tab's stream. */
export class LiveClient {
  private readonly timer: NodeJS.Timeout

  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    })
    res.flushHeaders()
    this.timer = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS)
  }

  send(message: LiveMessage): void {
    this.res.write(`data: ${JSON.stringify(message)}\n\n`)
  }

  onClose(listener: () => void): void {
    this.res.on('close', () => {
      clearInterval(this.timer)
      listener()
    })
  }

  close(): void {
    clearInterval(this.timer)
    this.res.end()
  }
}

/** The tabs on one session. */
export class LiveChannel {
  readonly clients = new Set<LiveClient>()
  private tail: Tail | undefined

  broadcast(message: LiveMessage): void {
    for (const client of this.clients) client.send(message)
  }

  /** Starts reading the stored log every TAIL_POLL_MS from `next` on (idempotent). */
  startTail(persistence: SessionPersistence, id: string, next: number): void {
    this.tail ??= new Tail(persistence, id, next, (events) => {
      for (const event of events) this.broadcast({ kind: 'event', event })
    })
  }

  stopTail(): void {
    this.tail?.stop()
    this.tail = undefined
  }

  close(): void {
    this.stopTail()
    for (const client of this.clients) client.close()
    this.clients.clear()
  }
}

/** Polls a stored log (backends without notifications) and reports new events. */
class Tail {
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(
    private readonly persistence: SessionPersistence,
    private readonly id: string,
    private next: number,
    private readonly report: (events: readonly SessionEvent[]) => void,
  ) {
    this.schedule()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }

  private schedule(): void {
    if (this.stopped) return
    this.timer = setTimeout(() => void this.poll(), TAIL_POLL_MS)
  }

  private async poll(): Promise<void> {
    try {
      const { events } = await this.persistence.load(this.id)
      if (!this.stopped && events.length > this.next) {
        this.report(events.slice(this.next))
        this.next = events.length
      }
    } catch {
      // The writer is mid-append or the session went away: try again on the next tick.
    }
    this.schedule()
  }
}
