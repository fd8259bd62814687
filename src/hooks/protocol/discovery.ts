// Where hooks come from: the files named in dsh's config (and the user-level file when
// opted in), then the project's own files under the project root of a session's cwd.
// Project files load only when the project is trusted; a file that appears or changes
// after it was read is reported, never loaded behind the user's back.

import { readFileSync, statSync } from 'node:fs'
import { basename, relative, resolve } from 'node:path'
import { errorMessage } from '../../core/errors.js'
import type { ProjectTrustService } from '../../trust/service.js'
import { loadHookFiles } from './config.js'
import { compileHookTable, type HookTable, mergeHookTables } from './dispatch.js'
import type { HookEventName, HookSettings, HookWarn } from './types.js'

/** What a dialect reads, relative to the project root (project files) and the home folder (user file). */
export interface HookFileLocations {
  /** In loading order, e.g. `.claude/settings.json` then `.claude/settings.local.json`. */
  project: readonly string[]
  /** e.g. `.claude/settings.json` under the user's home (read only when opted in). */
  user: string
}

/**
 * A file as it was when read: its modification time (null: it did not exist) and its hooks
 * as JSON. Only the hooks count as a change: dsh itself writes permission rules into
 * `.claude/settings.local.json` ("don't ask again"), which changes no hook.
 */
interface FileStamp {
  mtimeMs: number | null
  hooks: string
}

export interface ProjectHooks {
  root: string
  /** The config's table merged with the project's (when trusted). */
  table: HookTable
  /** Project files as they were when read. */
  stamps: Map<string, FileStamp>
  /** Project files already reported as changed since. */
  reported: Set<string>
}

export interface DiscoveryOptions {
  dialect: 'claude-code' | 'codex'
  supported: readonly HookEventName[]
  locations: HookFileLocations
  warn: HookWarn
  /** What the user must see (untrusted project, unsupported events, files changed after start). */
  notify: (message: string) => void
  trust: () => ProjectTrustService | undefined
}

/** Compiles settings for the dialect, reporting events it cannot fire. */
export function compileFor(settings: HookSettings, options: DiscoveryOptions): HookTable {
  return compileHookTable(settings, options.dialect, options.supported, options.warn, options.notify)
}

/**
 * Reads the project's hook files under `root` and decides trust when any holds hooks.
 * Never rejects: an unreadable file or a failed trust decision is reported and loads nothing.
 */
export async function loadProjectHooks(
  root: string,
  base: HookTable,
  options: DiscoveryOptions,
): Promise<ProjectHooks> {
  const files = options.locations.project.map((file) => resolve(root, file))
  const stamps = new Map(files.map((file) => [file, stampOf(file)]))
  const project: ProjectHooks = { root, table: base, stamps, reported: new Set() }
  const found = readProjectHooks(root, options, options.warn)
  if (!found) return project
  const { settings, brings } = found
  const trust = options.trust()
  if (!trust) {
    options.notify(`project hooks in ${root} not loaded: no project trust service is running`)
    return project
  }
  try {
    // An untrusted folder is reported once, by the trust service, naming these hooks too.
    if (!(await trust.decide(root, [brings])).trusted) return project
  } catch (error) {
    options.notify(
      `project ${root}: could not decide trust (${errorMessage(error)}); its ${brings} do not run`,
    )
    return project
  }
  project.table = mergeHookTables([base, compileFor(settings, options)])
  return project
}

/**
 * The project's hook files under `root` and what they bring, as a trust question names it
 * (`3 Claude Code hooks (.claude/settings.json)`); undefined when they hold no hook.
 */
export function readProjectHooks(
  root: string,
  options: Pick<DiscoveryOptions, 'dialect' | 'locations'>,
  warn: HookWarn,
): { settings: HookSettings; brings: string } | undefined {
  const present = options.locations.project
    .map((file) => resolve(root, file))
    .filter((file) => mtimeOf(file) !== null)
  if (present.length === 0) return undefined
  const settings = loadHookFiles(present, warn)
  const count = [...settings.values()].flat().reduce((sum, group) => sum + group.hooks.length, 0)
  if (count === 0) return undefined
  const files = present.map((file) => relative(root, file)).join(', ')
  const brings = `${count} ${options.dialect === 'codex' ? 'Codex' : 'Claude Code'} hook${count === 1 ? '' : 's'} (${files})`
  return { settings, brings }
}

/** Project hook files that appeared, changed or vanished since they were read, each reported once. */
export function changedProjectFiles(project: ProjectHooks): string[] {
  const changed: string[] = []
  for (const [file, stamp] of project.stamps) {
    // The file is read only when its time moved.
    if (project.reported.has(file) || mtimeOf(file) === stamp.mtimeMs) continue
    const now = stampOf(file)
    project.stamps.set(file, now)
    if (now.hooks === stamp.hooks) continue
    project.reported.add(file)
    changed.push(file)
  }
  return changed
}

function stampOf(file: string): FileStamp {
  return { mtimeMs: mtimeOf(file), hooks: hooksOf(file) }
}

function mtimeOf(file: string): number | null {
  try {
    return statSync(file).mtimeMs
  } catch {
    // Missing or unreadable: treated as absent.
    return null
  }
}

/**
 * The file's hooks as JSON (`null` when missing or absent); its text when it is not JSON. A
 * Codex `hooks.json` holds only hooks (maybe as a bare event map): all of it counts.
 */
function hooksOf(file: string): string {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    // Missing or unreadable: no hooks from it.
    return 'null'
  }
  try {
    const parsed = JSON.parse(text) as { hooks?: unknown } | null
    return JSON.stringify(basename(file) === 'hooks.json' ? parsed : (parsed?.hooks ?? null))
  } catch {
    // Not JSON: any change to it counts.
    return text
  }
}
