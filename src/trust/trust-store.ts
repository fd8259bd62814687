// Remembers which project folders the user trusts to bring their own configuration
// (hooks, MCP servers, permission allow rules, skills, commands). One JSON file under
// the harness home; trusting a folder also trusts the folders inside it.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'
import * as z from 'zod'
import { DshError } from '../core/errors.js'

export const TRUST_FILE_NAME = 'trusted-folders.json'

export const TrustErrorCode = {
  /** The trust file exists but is not what dsh wrote. */
  InvalidStore: 'TRUST_STORE_INVALID',
} as const

export interface TrustEntry {
  readonly folder: string
  /** Epoch ms. */
  readonly trustedAt: number
}

const TrustFileSchema = z.object({
  version: z.literal(1),
  folders: z.array(z.object({ folder: z.string().min(1), trustedAt: z.number().int() })),
})

/** The trust file of one harness home. Every call reads the file, so other processes' answers count. */
export class ProjectTrustStore {
  readonly path: string

  constructor(dshHome: string) {
    this.path = join(dshHome, TRUST_FILE_NAME)
  }

  /** Every trusted folder. A missing file is an empty list; a damaged one throws, naming the file. */
  list(): TrustEntry[] {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw new DshError(
        `cannot read ${this.path}: ${(error as Error).message}`,
        TrustErrorCode.InvalidStore,
        {
          cause: error,
          userFacing: true,
        },
      )
    }
    let parsed: z.infer<typeof TrustFileSchema>
    try {
      parsed = TrustFileSchema.parse(JSON.parse(text))
    } catch (error) {
      throw new DshError(
        `${this.path} is damaged (not a dsh trust file); fix it or delete it to be asked again`,
        TrustErrorCode.InvalidStore,
        { cause: error, userFacing: true },
      )
    }
    return parsed.folders
  }

  /** The trusted folder that covers `folder` (itself or an ancestor), if any. */
  trustedBy(folder: string): TrustEntry | undefined {
    const target = resolve(folder)
    return this.list().find((entry) => target === entry.folder || target.startsWith(entry.folder + sep))
  }

  isTrusted(folder: string): boolean {
    return this.trustedBy(folder) !== undefined
  }

  /** Trusts a folder (and what is inside it). Written atomically, mode 0600. */
  trust(folder: string, now = Date.now()): void {
    const target = resolve(folder)
    const others = this.list().filter((entry) => entry.folder !== target)
    this.write([...others, { folder: target, trustedAt: now }])
  }

  /** Forgets a folder; answers whether it was trusted by its own entry. */
  untrust(folder: string): boolean {
    const target = resolve(folder)
    const entries = this.list()
    const kept = entries.filter((entry) => entry.folder !== target)
    if (kept.length === entries.length) return false
    this.write(kept)
    return true
  }

  private write(folders: TrustEntry[]): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 })
    const temp = `${this.path}.${process.pid}.tmp`
    writeFileSync(temp, `${JSON.stringify({ version: 1, folders }, null, 2)}\n`, { mode: 0o600 })
    renameSync(temp, this.path)
  }
}
