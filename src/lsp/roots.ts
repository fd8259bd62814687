// Which server serves a file and in which project root; where a server's command is.

import { existsSync } from 'node:fs'
import { dirname, extname, isAbsolute, join } from 'node:path'
import { findExecutable } from '../shell/index.js'
import type { LspServerSpec } from './types.js'

/** The extension of `path` without the dot, lower case ('' when none). */
export function extensionOf(path: string): string {
  return extname(path).slice(1).toLowerCase()
}

/** The first server claiming the file's extension. */
export function serverFor(specs: readonly LspServerSpec[], path: string): LspServerSpec | undefined {
  const extension = extensionOf(path)
  return specs.find((spec) => spec.extensions.includes(extension))
}

/**
 * The nearest folder at or above the file holding one of `markers`, not going above
 * `fallback` when the file is inside it; `fallback` (the session cwd) when none is found.
 */
export function findRoot(path: string, markers: readonly string[], fallback: string): string {
  let folder = dirname(path)
  for (;;) {
    if (markers.some((marker) => existsSync(join(folder, marker)))) return folder
    const parent = dirname(folder)
    if (parent === folder || folder === fallback) return fallback
    folder = parent
  }
}

/** A server's program as found: `fromProject` when it is the project's own (node_modules/.bin). */
export interface ResolvedCommand {
  readonly path: string
  readonly fromProject: boolean
}

/**
 * The absolute command: as given when absolute, else on PATH, else in
 * `node_modules/.bin` of the root or a folder above it (the project's own program, which
 * the model can write); undefined when not installed.
 */
export function resolveCommand(
  command: string,
  root: string,
  pathVariable = process.env.PATH,
): ResolvedCommand | undefined {
  if (isAbsolute(command)) return existsSync(command) ? { path: command, fromProject: false } : undefined
  const onPath = findExecutable(command, pathVariable)
  if (onPath) return { path: onPath, fromProject: false }
  for (let folder = root; ; folder = dirname(folder)) {
    const local = join(folder, 'node_modules', '.bin', command)
    if (existsSync(local)) return { path: local, fromProject: true }
    if (dirname(folder) === folder) return undefined
  }
}
