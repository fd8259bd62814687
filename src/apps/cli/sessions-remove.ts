// `dsh sessions rm <id...>` and `dsh sessions prune --older-than <age>`: remove stored
// sessions with their sub-agent sessions and spill files. A session being written is
// never removed: the backend refuses it (PERSISTENCE_LOCKED) and says who writes it.

import { join } from 'node:path'
import { isEmptySession, resolveSessionId } from '../../history/index.js'
import type { SessionPersistence } from '../../persistence/persistence.js'
import type { SessionId, SessionSummary } from '../../session/types.js'
import { SPILL_FOLDER } from '../../spill/index.js'
import { formatAge } from '../shared/age.js'
import { ExitCode, usageError } from '../shared/errors.js'
import { resolveCwd } from '../shared/options.js'
import { colorsFor } from '../shared/render.js'
import { type SessionLineage, sessionLineage } from '../shared/session-lineage.js'
import { removeSessionTree } from '../shared/session-removal.js'
import { safeId, safeText, withStorage } from './sessions.js'

interface ConfigOption {
  config?: string
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }

/** `30d`, `12h`, `2w` → milliseconds; a usage error (exit 2) for anything else. */
export function parseAge(text: string): number {
  const match = /^(\d+)([hdw])$/.exec(text.trim())
  const count = match ? Number(match[1]) : Number.NaN
  if (!match || !Number.isSafeInteger(count) || count < 1) {
    throw usageError(
      `--older-than takes a whole number and a unit h (hours), d (days) or w (weeks), like 30d (got ${JSON.stringify(text)})`,
    )
  }
  return count * UNIT_MS[match[2]!]!
}

/** `sessions rm`: removes each named session, its sub-agent sessions and their spill files. */
export async function removeCommand(inputs: string[], options: ConfigOption): Promise<number> {
  return withStorage(options, async ({ persistence, list }, config) => {
    // Every id is resolved (exact, or a unique prefix) before anything goes, so a typo removes nothing.
    const ids: SessionId[] = []
    for (const input of inputs) ids.push(await resolveSessionId(persistence, input))
    const summaries = await list()
    const lineage = sessionLineage(summaries)
    const byId = new Map(summaries.map((summary) => [summary.header.id, summary]))
    const remover = new Remover(persistence, lineage, join(config.home, SPILL_FOLDER))
    for (const id of ids) await remover.removeGroup(id, byId.get(id), false)
    return remover.failed ? ExitCode.Failure : ExitCode.Ok
  })
}

export interface PruneOptions extends ConfigOption {
  olderThan: string
  dryRun?: boolean
  all?: boolean
  cwd?: string
}

/**
 * `sessions prune`: removes this folder's sessions (every folder's with `--all`) whose last
 * activity is older than `--older-than`, with their sub-agent sessions. A session being
 * written is skipped with a note; `--dry-run` lists what would go and removes nothing.
 */
export async function pruneCommand(options: PruneOptions): Promise<number> {
  const ageMs = parseAge(options.olderThan)
  const cwd = options.all ? undefined : resolveCwd(options.cwd)
  return withStorage(options, async ({ persistence, list }, config) => {
    const summaries = await list()
    const lineage = sessionLineage(summaries)
    const cutoff = Date.now() - ageMs
    const old = summaries.filter(
      (summary) =>
        !lineage.isFolded(summary) &&
        (cwd === undefined || summary.header.cwd === cwd) &&
        // Empty sessions (quit before a prompt) go whatever their age.
        (summary.lastActivity < cutoff || isEmptySession(summary)),
    )
    const where = cwd === undefined ? '' : ` in ${cwd}`
    if (old.length === 0) {
      process.stdout.write(`no sessions older than ${options.olderThan}${where}\n`)
      return ExitCode.Ok
    }
    const remover = new Remover(persistence, lineage, join(config.home, SPILL_FOLDER))
    for (const summary of old) await remover.removeGroup(summary.header.id, summary, options.dryRun ?? false)
    const { sessions, subagents, skipped } = remover.counts
    const verb = options.dryRun ? 'would remove' : 'removed'
    const extra = subagents > 0 ? ` and ${subagents} sub-agent session${subagents === 1 ? '' : 's'}` : ''
    const skip = skipped > 0 ? `; skipped ${skipped} being written` : ''
    process.stdout.write(
      `${verb} ${sessions} session${sessions === 1 ? '' : 's'}${extra} older than ${options.olderThan}${where}${skip}\n`,
    )
    return ExitCode.Ok
  })
}

/** Removes a session and then its sub-agent sessions, printing one line for each. */
class Remover {
  failed = false
  readonly counts = { sessions: 0, subagents: 0, skipped: 0 }
  private readonly colors = colorsFor(process.stdout)
  private readonly now = Date.now()

  constructor(
    private readonly persistence: SessionPersistence,
    private readonly lineage: SessionLineage,
    private readonly spillRoot: string,
  ) {}

  /**
   * In prune mode (`summary` given, not an explicit `rm`) a live session is skipped with a
   * note; for `rm` the refusal is the command's error. Sub-agent sessions go only after
   * their parent did, so a live parent keeps its children.
   */
  async removeGroup(id: SessionId, summary: SessionSummary | undefined, dryRun: boolean): Promise<void> {
    const describe = summary ? this.describe(summary) : ''
    const note = (parent: SessionId) => this.colors.dim(`  (sub-agent of ${safeId(parent)})`)
    if (dryRun) {
      process.stdout.write(`would remove ${safeId(id)}${describe}\n`)
      this.counts.sessions += 1
      for (const { summary: child } of this.lineage.descendants(id)) {
        process.stdout.write(
          `would remove ${safeId(child.header.id)}${note(child.header.parentSession ?? id)}\n`,
        )
        this.counts.subagents += 1
      }
      return
    }
    for (const outcome of await removeSessionTree(this.persistence, this.lineage, this.spillRoot, id)) {
      if (outcome.kind === 'refused') {
        this.counts.skipped += 1
        this.failed = true
        process.stderr.write(`dsh: ${outcome.message}\n`)
        continue
      }
      const parent = outcome.parent
      process.stdout.write(`removed ${safeId(outcome.id)}${parent === undefined ? describe : note(parent)}\n`)
      if (parent === undefined) this.counts.sessions += 1
      else this.counts.subagents += 1
    }
  }

  private describe(summary: SessionSummary): string {
    const title = summary.title !== undefined ? `  ${safeText(summary.title)}` : ''
    return this.colors.dim(`  ${formatAge(summary.lastActivity, this.now)}${title}`)
  }
}
