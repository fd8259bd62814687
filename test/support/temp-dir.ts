// Shared temporary folders for tests: created under os.tmpdir(), removed after each test.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'

/** Creates a fresh folder under os.tmpdir() (or `base`); the caller removes it (or uses `useTempDirs`). */
export function createTempDir(prefix = 'dsh-test-', base = tmpdir()): string {
  return mkdtempSync(join(base, prefix))
}

/**
 * A base folder outside /tmp, for tests whose subject must not be hidden by accident: the
 * bubblewrap sandbox mounts a private /tmp, which would hide a harness home under /tmp even
 * if the sandbox forgot to hide the home itself.
 */
export const OUTSIDE_TMP = '/var/tmp'

/** Removes a folder and everything in it; a missing folder is fine. */
export function removeTempDir(path: string): void {
  rmSync(path, { recursive: true, force: true })
}

/**
 * Call at the top of a test file (or describe block): returns `make()`, which
 * creates a temporary folder that is removed after the current test.
 */
export function useTempDirs(prefix?: string, base?: string): () => string {
  const made: string[] = []
  afterEach(() => {
    for (const path of made.splice(0)) removeTempDir(path)
  })
  return () => {
    const path = createTempDir(prefix, base)
    made.push(path)
    return path
  }
}
