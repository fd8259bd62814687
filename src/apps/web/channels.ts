// The web server's live fan-out: one channel per watched session (its tabs' streams, and a
// tail of the stored log while nobody here drives it) and one for the tabs that show no
// session (the sessions page), which only trust questions reach.

import type { ServerResponse } from 'node:http'
import type { SessionPersistence } from '../../persistence/persistence.js'
import type { SessionId } from '../../session/types.js'
import { LiveChannel, LiveClient } from './live.js'
import type { LiveMessage } from './types.js'

export class LiveChannelRegistry {
  private readonly channels = new Map<SessionId, LiveChannel>()
  /** The tabs on the sessions page. */
  private readonly everywhere = new LiveChannel()

  /**
   * Attaches a tab to a session's channel (made on first use). When its last tab goes,
   * the channel's tail stops and the channel is dropped.
   */
  attach(id: SessionId, res: ServerResponse): { client: LiveClient; channel: LiveChannel } {
    let channel = this.channels.get(id)
    if (!channel) {
      channel = new LiveChannel()
      this.channels.set(id, channel)
    }
    const client = new LiveClient(res)
    const attached = channel
    attached.clients.add(client)
    client.onClose(() => {
      attached.clients.delete(client)
      if (attached.clients.size === 0) {
        attached.stopTail()
        this.channels.delete(id)
      }
    })
    return { client, channel: attached }
  }

  /** Attaches a tab that shows no session. */
  attachEverywhere(res: ServerResponse): LiveClient {
    const client = new LiveClient(res)
    this.everywhere.clients.add(client)
    client.onClose(() => this.everywhere.clients.delete(client))
    return client
  }

  /** Sends to the tabs on one session (none watching: nothing happens). */
  send(id: SessionId, message: LiveMessage): void {
    this.channels.get(id)?.broadcast(message)
  }

  /** Sends to every tab, on a session or not. */
  broadcastAll(message: LiveMessage): void {
    this.everywhere.broadcast(message)
    for (const channel of this.channels.values()) channel.broadcast(message)
  }

  /** Starts tailing a watched session's stored log from `next` on (nobody watching: nothing to tail). */
  startTail(id: SessionId, persistence: SessionPersistence, next: number): void {
    this.channels.get(id)?.startTail(persistence, id, next)
  }

  /** Stops tailing: this server drives the session now, its events arrive live. */
  stopTail(id: SessionId): void {
    this.channels.get(id)?.stopTail()
  }

  /** The session was removed: its tabs are told so and their streams end. */
  closeRemoved(id: SessionId): void {
    const channel = this.channels.get(id)
    channel?.broadcast({ kind: 'error', message: 'this session was removed' })
    channel?.close()
    this.channels.delete(id)
  }

  /** Ends every stream (the server stops). */
  closeAll(): void {
    this.everywhere.close()
    for (const channel of this.channels.values()) channel.close()
    this.channels.clear()
  }
}
