// Following a session live from any host: LISTEN on the schema's channel (every
// append announces `<session key hex>:<event count>` at COMMIT), then read the new
// rows. A slow poll backs the notifications up across reconnects. Used by
// `dsh sessions tail --follow`; any other front end (a web UI) can use it the same way.

import type { Client, Notification } from 'pg'
import type { SessionEvent, SessionId } from '../../session/types.js'
import { driverOptions, type ResolvedPostgresConfig } from './config.js'
import { isConnectionError, loadDriver, unavailable } from './connection.js'
import { channelFor } from './migrations.js'
import type { PostgresSessionStore } from './store.js'
import { sessionKey } from './store.js'

export interface FollowOptions {
  /** The first seq to deliver. */
  fromSeq: number
  /** Called with each run of new events, in order, never twice for one seq. */
  onEvents(events: SessionEvent[]): void
  /** Stops following; the returned promise then resolves. */
  signal: AbortSignal
  /** Safety-net poll interval, ms. Default 5,000. */
  pollMs?: number
}

/** Delivers the session's events from `fromSeq` on until `signal` aborts. */
export async function followSession(
  store: PostgresSessionStore,
  id: SessionId,
  options: FollowOptions,
): Promise<void> {
  const config = store.config
  const key = sessionKey(id)
  const hexKey = key.toString('hex')
  let next = options.fromSeq
  let reading = Promise.resolve()
  const catchUp = () => {
    reading = reading.then(async () => {
      const events = await store.eventsFrom(id, next)
      if (events.length === 0 || options.signal.aborted) return
      next = events.at(-1)!.seq + 1
      options.onEvents(events)
    })
    return reading
  }

  let delay = 100
  while (!options.signal.aborted) {
    let client: Client | undefined
    try {
      client = await listen(config, (message) => {
        const [who, count] = (message.payload ?? '').split(':')
        if (who === hexKey && Number(count) > next) void catchUp().catch(() => {}) // the poll retries
      })
      await catchUp() // after LISTEN: nothing committed from here on can be missed
      delay = 100
      await new Promise<void>((resolve, reject) => {
        const poll = setInterval(() => void catchUp().catch(reject), options.pollMs ?? 5_000)
        const stop = () => {
          clearInterval(poll)
          resolve()
        }
        options.signal.addEventListener('abort', stop, { once: true })
        client!.once('error', (error) => {
          clearInterval(poll)
          options.signal.removeEventListener('abort', stop)
          reject(error)
        })
      })
    } catch (error) {
      if (!isConnectionError(error)) throw error
      if (options.signal.aborted) break
      await new Promise((resolve) => setTimeout(resolve, delay))
      delay = Math.min(delay * 2, 5_000)
    } finally {
      await client?.end().catch(() => {}) // gone already, or closing: nothing to keep
    }
  }
  await reading.catch(() => {}) // stopping: a read cut short is not an error
}

async function listen(
  config: ResolvedPostgresConfig,
  onNotice: (message: Notification) => void,
): Promise<Client> {
  const pg = await loadDriver()
  const { max: _max, ...options } = driverOptions(config)
  const client = new pg.Client(options)
  client.on('error', () => {}) // surfaced through the listener's own 'error' wait
  try {
    await client.connect()
  } catch (error) {
    throw unavailable(config, error)
  }
  client.on('notification', onNotice)
  await client.query(`LISTEN ${channelFor(config.schema)}`)
  return client
}
