// Shared pieces of the reliability trials: a CLI world per backend and a read-only
// look at what the backend stored (through the backend itself, as `dsh` would load it).

import { join } from 'node:path'
import { JsonlSessionBackend } from '../../src/persistence/jsonl/backend.js'
import { SqliteSessionBackend } from '../../src/persistence/sqlite/backend.js'
import type { LoadedSession } from '../../src/persistence/types.js'
import type { SessionId } from '../../src/session/types.js'
import { type CliWorld, makeWorld } from '../apps/cli/cli.js'
import { type BackendFixture, startHarness } from '../persistence/fixtures.js'

export type DiskBackend = 'jsonl' | 'sqlite'
export const DISK_BACKENDS: readonly DiskBackend[] = ['jsonl', 'sqlite']

/** A CLI world whose config selects `backend`. */
export function makeBackendWorld(dir: string, baseUrl: string, backend: DiskBackend, extra = ''): CliWorld {
  return makeWorld(dir, baseUrl, `persistence:\n  backend: ${backend}\n${extra}`)
}

/** The backend plugin over a CLI world's storage. */
export function storageFixture(world: CliWorld, backend: DiskBackend): BackendFixture {
  return backend === 'jsonl'
    ? ({
        plugin: JsonlSessionBackend,
        config: { root: join(world.home, 'sessions') },
        durable: true,
      } as BackendFixture)
    : ({
        plugin: SqliteSessionBackend,
        config: { file: join(world.home, 'sessions.db') },
        durable: true,
      } as BackendFixture)
}

/** Loads a session read-only through its backend (no repair is written). */
export async function loadStored(world: CliWorld, backend: DiskBackend, id: string): Promise<LoadedSession> {
  const harness = await startHarness(storageFixture(world, backend))
  try {
    return await harness.backend().load(id as SessionId)
  } finally {
    await harness.dispose()
  }
}

/** The user text of every completed turn, in log order. */
export function completedTurns(session: LoadedSession): string[] {
  const textOf = new Map<number, string>()
  let current: number | undefined
  const done: string[] = []
  for (const event of session.events) {
    const data = event.data as { turn?: number; text?: string; reason?: string }
    if (event.type === 'turn/start') current = data.turn
    else if (event.type === 'user/message' && current !== undefined && !textOf.has(current)) {
      textOf.set(current, data.text ?? '')
    } else if (event.type === 'turn/end' && data.reason === 'completed' && data.turn !== undefined) {
      done.push(textOf.get(data.turn) ?? '')
    }
  }
  return done
}

/** Seq numbers run 0, 1, 2, … with no gap or repeat. */
export function seqsContiguous(session: LoadedSession): boolean {
  return session.events.every((event, index) => event.seq === index)
}
