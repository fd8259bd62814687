// The package version, read from package.json next to the build (no other imports,
// so `dsh --version` stays a cold start of node plus one small file read).

import { readFileSync } from 'node:fs'

/** The version in dsh's package.json, or 'unknown' when it cannot be read. */
export function packageVersion(): string {
  // Built: dist/src/core/version.js (three levels down); from source: src/core/version.ts (two).
  for (const relative of ['../../../package.json', '../../package.json']) {
    try {
      const text = readFileSync(new URL(relative, import.meta.url), 'utf8')
      const parsed = JSON.parse(text) as { name?: string; version?: string }
      if (parsed.name === 'dsh' && typeof parsed.version === 'string') return parsed.version
    } catch {
      // Not at this level: try the next.
    }
  }
  return 'unknown'
}
