// Remembers which project folders the user trusts to bring their own configuration
// (hooks, MCP servers, permission allow rules, skills, commands), and the content of each
// project's configuration files that the trust covers. One JSON file under the harness
// home; trusting a folder also trusts the folders inside it.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'
import * as z from 'zod'
import { DshError } from '../core/errors.js'
import { lazySchema } from '../core/lazy-schema.js'
import type { ConfigFingerprint } from './fingerprint.js'

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

// Version 1 had no `configs`: its folders count as trusted with unknown content.
const TrustFileSchema = lazySchema(() =>
  z.object({
    version: z.union([z.literal(1), z.literal(2)]),
    folders: z.array(z.object({ folder: z.string().min(1), trustedAt: z.number().int() })),
    /** By project root: the content of its configuration files when it was trusted. */
    configs: z.record(z.string(), z.record(z.string(), z.string().nullable())).optional(),
  }),
)

type TrustFile = z.infer<ReturnType<typeof TrustFileSchema>>

/** The trust file of one harness home. Every call reads the file, so other processes' answers count. */
export class ProjectTrustStore {
  readonly path: string

  constructor(dshHome: string) {
    this.path = join(dshHome, TRUST_FILE_NAME)
  }

  /** Every trusted folder. A missing file is an empty list; a damaged one throws, naming the file. */
  list(): TrustEntry[] {
    return this.read().folders
  }

  /** The configuration content `root` was trusted with, if recorded. */
  configOf(root: string): ConfigFingerprint | undefined {
    return this.read().configs?.[resolve(root)]
  }

  /** Records the configuration content a trusted project root is trusted with. */
  recordConfig(root: string, config: ConfigFingerprint): void {
    const file = this.read()
    this.write(file.folders, { ...file.configs, [resolve(root)]: config })
  }

  private read(): TrustFile {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 2, folders: [] }
      throw new DshError(
        `cannot read ${this.path}: ${(error as Error).message}`,
        TrustErrorCode.InvalidStore,
        {
          cause: error,
          userFacing: true,
        },
      )
    }
    let parsed: TrustFile
    try {
      parsed = TrustFileSchema().parse(JSON.parse(text))
    } catch (error) {
      throw new DshError(
        `${this.path} is damaged (not a dsh trust file); fix it or delete it to be asked again`,
        TrustErrorCode.InvalidStore,
        { cause: error, userFacing: true },
      )
    }
    return parsed
  }

  /** The trusted folder that covers `folder` (itself or an ancestor), if any. */
  trustedBy(folder: string): TrustEntry | undefined {
    const target = resolve(folder)
    return this.list().find((entry) => target === entry.folder || target.startsWith(entry.folder + sep))
  }

  isTrusted(folder: string): boolean {
    return this.trustedBy(folder) !== undefined
  }

  /**
   * Trusts a folder (and what is inside it), with the content of its configuration files
   * when given. Written atomically, mode 0600.
   */
  trust(folder: string, now = Date.now(), config?: ConfigFingerprint): void {
    const target = resolve(folder)
    const file = this.read()
    const others = file.folders.filter((entry) => entry.folder !== target)
    const configs = { ...file.configs }
    if (config) configs[target] = config
    else delete configs[target]
    this.write([...others, { folder: target, trustedAt: now }], configs)
  }

  /** Forgets a folder; answers whether it was trusted by its own entry. */
  untrust(folder: string): boolean {
    const target = resolve(folder)
    const file = this.read()
    const kept = file.folders.filter((entry) => entry.folder !== target)
    if (kept.length === file.folders.length) return false
    const configs = { ...file.configs }
    delete configs[target]
    this.write(kept, configs)
    return true
  }

  private write(folders: TrustEntry[], configs: TrustFile['configs'] = {}): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 })
    const temp = `${this.path}.${process.pid}.tmp`
    writeFileSync(temp, `${JSON.stringify({ version: 2, folders, configs }, null, 2)}\n`, { mode: 0o600 })
    renameSync(temp, this.path)
  }
}
