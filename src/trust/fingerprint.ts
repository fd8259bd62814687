// What a trust answer covers: the content of the project's trusted files (core/project-config.ts),
// one SHA-256 per file, so a later change to any of them is seen and named.

import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_TRUSTED_FILES } from '../core/project-config.js'

/** Per file (relative to the project root): `sha256:<hex>` of its bytes, or null when absent. */
export type ConfigFingerprint = Readonly<Record<string, string | null>>

/** Reads the project's trusted files now. A file that exists but cannot be read counts as changed content. */
export function fingerprintProjectConfig(root: string): ConfigFingerprint {
  const fingerprint: Record<string, string | null> = {}
  for (const file of PROJECT_TRUSTED_FILES) fingerprint[file] = hashOf(join(root, file))
  return fingerprint
}

/** The files whose content differs between what was trusted and what is there now. */
export function changedConfigFiles(trusted: ConfigFingerprint, current: ConfigFingerprint): string[] {
  return PROJECT_TRUSTED_FILES.filter((file) => (trusted[file] ?? null) !== (current[file] ?? null))
}

/** True when the project has none of the trusted files. */
export function isEmptyFingerprint(fingerprint: ConfigFingerprint): boolean {
  return Object.values(fingerprint).every((hash) => hash === null)
}

function hashOf(path: string): string | null {
  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return null
    // Unreadable now: never equal to any trusted content, so it is never trusted silently.
    return `unreadable:${code ?? 'error'}`
  }
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}
