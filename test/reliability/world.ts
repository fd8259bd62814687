// Shared pieces of the reliability trials: a CLI world per backend and a read-only
// look at what the backend stored (through the backend itself, as `dsh` would load it).

import { join } from 'node:path'
import { JsonlSessionBackend } from '../../src/persistence/jsonl/backend.js'
import { PostgresSessionBackend } from '../../src/persistence/postgres/index.js'
import { SqliteSessionBackend } from '../../src/persistence/sqlite/backend.js'
import type { LoadedSession } from '../../src/persistence/types.js'
import type { SessionId } from '../../src/session/types.js'
import { type CliWorld, makeWorld } from '../apps/cli/cli.js'
import { type BackendFixture, startHarness } from '../persistence/fixtures.js'

export type DiskBackend = 'jsonl' | 'sqlite'
export const DISK_BACKENDS: readonly DiskBackend[] = ['jsonl', 'sqlite']

/** Where one trial's sessions live: a disk backend in the world's home, or a PostgreSQL schema. */
export interface TrialStore {
  readonly name: DiskBackend | 'postgres'
  /** The `persistence:` block of the CLI config. */
  readonly yaml: string
  /** The backend plugin over a world's storage. */
  fixture(world: CliWorld): BackendFixture
}

export function diskStore(backend: DiskBackend): TrialStore {
  return {
    name: backend,
    yaml: `persistence:\n  backend: ${backend}\n`,
    fixture: (world) =>
      (backend === 'jsonl'
        ? { plugin: JsonlSessionBackend, config: { root: join(world.home, 'sessions') }, durable: true }
        : {
            plugin: SqliteSessionBackend,
            config: { file: join(world.home, 'sessions.db') },
            durable: true,
          }) as BackendFixture,
  }
}

/** A schema of a running cluster (test/support/postgres-cluster.ts); the heartbeat is off, as in its tests. */
export function postgresStore(url: string, schema: string): TrialStore {
  return {
    name: 'postgres',
    yaml: `persistence:\n  backend: postgres\n  url: ${url}\n  schema: ${schema}\n`,
    fixture: () =>
      ({
        plugin: PostgresSessionBackend,
        config: { url, schema, heartbeatMs: 0 },
        durable: true,
      }) as BackendFixture,
  }
}

/** A CLI world whose config selects `store` (a disk backend by name, or any store). */
export function makeBackendWorld(
  dir: string,
  baseUrl: string,
  store: DiskBackend | TrialStore,
  extra = '',
): CliWorld {
  const target = typeof store === 'string' ? diskStore(store) : store
  return makeWorld(dir, baseUrl, `${target.yaml}${extra}`)
}

/** Loads a session read-only through its backend (no repair is written). */
export async function loadStored(
  world: CliWorld,
  store: DiskBackend | TrialStore,
  id: string,
): Promise<LoadedSession> {
  const target = typeof store === 'string' ? diskStore(store) : store
  const harness = await startHarness(target.fixture(world))
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
