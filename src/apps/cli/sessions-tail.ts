// `dsh sessions tail <id> [--follow]`: a session's latest events, then (with --follow)
// new ones as they are committed, from any host. PostgreSQL delivers them through
// LISTEN/NOTIFY; the file and SQLite backends are polled.

import { loadConfig } from '../../config/load.js'
import { resolveSessionId } from '../../history/index.js'
import type { SessionPersistence } from '../../persistence/persistence.js'
import type { SessionEvent } from '../../session/types.js'
import { ExitCode, usageError } from '../shared/errors.js'
import { colorsFor } from '../shared/render.js'
import { openStorage } from './storage.js'
import { formatEvent } from './transcript.js'

export interface TailOptions {
  config?: string
  follow?: boolean
  json?: boolean
  /** How many of the latest events to print first (default 20; `all` for every one). */
  lines?: string
}

const DEFAULT_LINES = 20
const POLL_MS = 500

export async function tailCommand(input: string, options: TailOptions): Promise<number> {
  const count = parseLines(options.lines)
  const config = loadConfig(options.config !== undefined ? { file: options.config } : {})
  const storage = await openStorage(config)
  const colors = colorsFor(process.stdout)
  const print = (events: readonly SessionEvent[]) => {
    for (const event of events) {
      if (options.json) {
        process.stdout.write(`${JSON.stringify(event)}\n`)
        continue
      }
      const line = formatEvent(event, colors)
      if (line !== undefined) process.stdout.write(`${line}\n`)
    }
  }
  try {
    const id = await resolveSessionId(storage.persistence, input)
    const { events } = await storage.persistence.load(id)
    print(count === undefined ? events : events.slice(Math.max(0, events.length - count)))
    if (!options.follow) return ExitCode.Ok

    const stop = new AbortController()
    const interrupt = () => stop.abort()
    process.once('SIGINT', interrupt)
    process.once('SIGTERM', interrupt)
    try {
      if (config.persistence.backend === 'postgres') {
        const { PostgresSessionBackend, followSession } = await import('../../persistence/postgres/index.js')
        const { store } = storage.persistence as InstanceType<typeof PostgresSessionBackend>
        await followSession(store, id, { fromSeq: events.length, onEvents: print, signal: stop.signal })
      } else {
        await poll(storage.persistence, id, events.length, print, stop.signal)
      }
    } finally {
      process.off('SIGINT', interrupt)
      process.off('SIGTERM', interrupt)
    }
    return ExitCode.Interrupted
  } finally {
    await storage.dispose()
  }
}

function parseLines(text: string | undefined): number | undefined {
  if (text === undefined) return DEFAULT_LINES
  if (text === 'all') return undefined
  const count = Number(text)
  if (!Number.isInteger(count) || count < 0)
    throw usageError(`--lines must be a count or "all" (got ${text})`)
  return count
}

/** Backends without notifications: read the log again every POLL_MS. */
async function poll(
  persistence: SessionPersistence,
  id: string,
  from: number,
  print: (events: readonly SessionEvent[]) => void,
  signal: AbortSignal,
): Promise<void> {
  let next = from
  while (!signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, POLL_MS)
      signal.addEventListener('abort', () => {
        clearTimeout(timer)
        resolve()
      })
    })
    if (signal.aborted) break
    const { events } = await persistence.load(id)
    if (events.length > next) {
      print(events.slice(next))
      next = events.length
    }
  }
}
