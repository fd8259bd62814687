// The one spill store: long tool output (bash streams, MCP results, fetched pages) kept
// with its session under the harness home, `$DSH_HOME/spill/<encoded-session-id>/`, so
// a path written into the session log stays valid after dsh exits and on resume, and
// goes away with the session (`remove`).

import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { type Context, Service } from 'cordis'
import { encodeSessionId } from '../persistence/jsonl/layout.js'
import { validateSessionId } from '../session/session.js'
import type { SessionId } from '../session/types.js'

export interface SpillStoreConfig {
  /** The harness home; spill files live under `<home>/spill`. */
  home: string
}

export const SPILL_FOLDER = 'spill'
const DIR_MODE = 0o700
const FILE_MODE = 0o600

export class SpillStore extends Service {
  /** Absolute `<home>/spill`. */
  readonly root: string

  constructor(ctx: Context, config: SpillStoreConfig) {
    super(ctx, 'spill')
    this.root = join(resolve(config.home), SPILL_FOLDER)
  }

  /** The folder of a session's spill files (pure: nothing is created). */
  dirFor(sessionId: SessionId): string {
    return spillDirFor(this.root, sessionId)
  }

  /**
   * Creates the session's folder (0700) if needed and returns it: a sandbox binds it
   * before a call, so files spilled later are visible to that call and its jobs.
   */
  ensureDir(sessionId: SessionId): string {
    const dir = this.dirFor(sessionId)
    mkdirSync(dir, { recursive: true, mode: DIR_MODE })
    return dir
  }

  /**
   * A fresh, unused file path in the session's folder, which is created (0700) if
   * needed: `<epoch-ms>-<random>-<label>.txt`. The caller creates the file (mode 0600,
   * exclusively). `label` is reduced to `[A-Za-z0-9._-]`.
   */
  allocate(sessionId: SessionId, label: string): string {
    const dir = this.ensureDir(sessionId)
    const safe = label.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'output'
    return join(dir, `${Date.now()}-${randomBytes(4).toString('hex')}-${safe}.txt`)
  }

  /** Writes `content` to a new spill file of the session (0600); resolves with its absolute path. */
  async write(sessionId: SessionId, label: string, content: string | Uint8Array): Promise<string> {
    const path = this.allocate(sessionId, label)
    await writeFile(path, content, { mode: FILE_MODE, flag: 'wx' })
    return path
  }

  /** Removes every spill file of the session. */
  remove(sessionId: SessionId): Promise<void> {
    return removeSpill(this.root, sessionId)
  }
}

/** The spill folder of a session under `root` (`<home>/spill`); pure. */
export function spillDirFor(root: string, sessionId: SessionId): string {
  validateSessionId(sessionId)
  return join(root, encodeSessionId(sessionId))
}

/**
 * Removes every spill file of a session (with the session: `sessions rm`, `prune`),
 * without a running service. `root` is `<home>/spill`. A missing folder is fine.
 */
export async function removeSpill(root: string, sessionId: SessionId): Promise<void> {
  await rm(spillDirFor(root, sessionId), { recursive: true, force: true })
}
