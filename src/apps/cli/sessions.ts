// `dsh sessions list|show|path|unlock`: stored sessions, read through the configured
// persistence backend without starting an agent. Only `unlock` ever writes.

import { loadConfig, type ResolvedConfig } from '../../config/load.js'
import { toTerminalId, toTerminalText } from '../../core/terminal-text.js'
import { isEmptySession, resolveSessionId } from '../../history/index.js'
import type { SessionPersistence } from '../../persistence/persistence.js'
import type { SessionLocation } from '../../persistence/types.js'
import { imageHashesIn } from '../../session/images.js'
import type { SessionOutcome, SessionSummary } from '../../session/types.js'
import {
  deriveUsage,
  formatUsageCell,
  type PriceTable,
  priceLedger,
  resolvePriceTable,
  type UsageTotals,
} from '../../usage/index.js'
import { formatAge } from '../shared/age.js'
import { ExitCode, usageError } from '../shared/errors.js'
import { resolveCwd } from '../shared/options.js'
import { type Colors, colorsFor } from '../shared/render.js'
import { sessionLineage } from '../shared/session-lineage.js'
import { openStorage, type Storage } from './storage.js'
import { formatTable, formatTranscript } from './transcript.js'

interface ConfigOption {
  config?: string
}

export interface ListOptions extends ConfigOption {
  all?: boolean
  cwd?: string
  json?: boolean
  /** Also list sub-agent sessions, indented under their parent (hidden by default, with a count). */
  subagents?: boolean
  /** Only sessions last written from this host (backends shared by hosts). */
  host?: string
  /** Only sessions in this status: live, interrupted or idle. */
  status?: string
}

const STATUSES = ['live', 'interrupted', 'idle']

/** Session logs `sessions list` reads at the same time when it must derive usage from them. */
const USAGE_READS_AT_ONCE = 16

export async function listCommand(options: ListOptions): Promise<number> {
  if (options.status !== undefined && !STATUSES.includes(options.status)) {
    throw usageError(`--status must be one of ${STATUSES.join(', ')} (got ${JSON.stringify(options.status)})`)
  }
  // A filter by host or status looks across folders unless --cwd names one.
  const acrossFolders =
    options.all || (options.cwd === undefined && (options.host ?? options.status) !== undefined)
  const cwd = acrossFolders ? undefined : resolveCwd(options.cwd)
  return withStorage(options, async ({ persistence, list }, config) => {
    const stored = await list()
    const lineage = sessionLineage(stored)
    const inScope = (summary: SessionSummary) => cwd === undefined || summary.header.cwd === cwd
    // A chat quit before its first prompt: not shown, never continued, removed by prune.
    const empty = stored.filter((summary) => isEmptySession(summary) && inScope(summary)).length
    const shown = stored.filter(
      (summary) =>
        !lineage.isFolded(summary) &&
        !isEmptySession(summary) &&
        (cwd === undefined || summary.header.cwd === cwd) &&
        (options.host === undefined || summary.host === options.host) &&
        (options.status === undefined || summary.status === options.status),
    )
    const shared = stored.some((summary) => summary.host !== undefined)
    const table = resolvePriceTable(config.pricing)
    const listed: { summary: SessionSummary; depth: number; subagents: number }[] = []
    for (const summary of shown) {
      const below = lineage.descendants(summary.header.id)
      listed.push({ summary, depth: 0, subagents: below.length })
      if (options.subagents) {
        for (const child of below)
          listed.push({
            summary: child.summary,
            depth: child.depth,
            subagents: lineage.children(child.summary.header.id).length,
          })
      }
    }
    // Usage is priced from the ledger each summary carries; only a price table whose peak
    // hours split a quarter hour needs each whole log, read several at once so the reads overlap.
    const rows: SessionRow[] = []
    for (let i = 0; i < listed.length; i += USAGE_READS_AT_ONCE) {
      const batch = listed.slice(i, i + USAGE_READS_AT_ONCE)
      const usages = await Promise.all(batch.map(({ summary }) => ledgerUsage(summary, table, persistence)))
      batch.forEach(({ summary, depth, subagents }, index) => {
        const { own, inherited } = usages[index]!
        const row = describe(summary, persistence.locate(summary.header), own, depth, subagents)
        if (inherited) row.inheritedUsage = inherited
        rows.push(row)
      })
    }
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify(
          rows.map(({ depth: _depth, ...row }) => row),
          null,
          2,
        )}\n`,
      )
      return ExitCode.Ok
    }
    const emptyNote =
      empty > 0
        ? `(${empty} empty session${empty === 1 ? '' : 's'} not shown; dsh sessions prune removes them)\n`
        : ''
    if (rows.length === 0) {
      process.stdout.write(
        cwd === undefined
          ? 'no stored sessions\n'
          : `no sessions in ${cwd} (dsh sessions list --all shows every folder)\n`,
      )
      process.stdout.write(emptyNote)
      return ExitCode.Ok
    }
    const colors = colorsFor(process.stdout)
    const now = Date.now()
    const header = ['ID', 'AGE', 'TURNS', 'USAGE']
    if (shared) header.push('HOST')
    header.push('STATUS')
    if (cwd === undefined) header.push('FOLDER')
    header.push('TITLE')
    const lines = rows.map((row) => {
      const cells = [
        row.depth > 0 ? `${'  '.repeat(row.depth - 1)}└ ${safeId(row.id)}` : safeId(row.id),
        formatAge(row.lastActivity, now),
        String(row.turns),
        row.usage ? formatUsageCell(row.usage, table.currency) : '?',
      ]
      if (shared) cells.push(row.host !== undefined && row.host !== null ? safeText(row.host) : '-')
      // A writer holding a shared store's lease says more than the open turn it is writing.
      cells.push(row.status === 'live' ? 'live' : (row.outcome ?? 'new'))
      if (cwd === undefined) cells.push(row.cwd !== null ? safeText(row.cwd) : '-')
      cells.push(titleCell(row, colors, options.subagents === true))
      return cells
    })
    process.stdout.write(`${formatTable(lines, colors, header)}\n${emptyNote && colors.dim(emptyNote)}`)
    return ExitCode.Ok
  })
}

/** The TITLE cell: the session's own first prompt, a fork's parent, and folded sub-agents. */
function titleCell(row: SessionRow, colors: Colors, subagentsShown: boolean): string {
  let title: string
  if (row.title !== null) title = safeText(row.title)
  else if (row.parentSession !== null && row.origin !== 'subagent')
    title = colors.dim(`(fork of ${safeId(row.parentSession.slice(0, 8))}, no prompt yet)`)
  else title = colors.dim('(no prompt yet)')
  if (!subagentsShown && row.subagents > 0) {
    title += colors.dim(` (+${row.subagents} sub-agent${row.subagents === 1 ? '' : 's'}, --subagents)`)
  }
  return title
}

export interface ShowOptions extends ConfigOption {
  json?: boolean
}

export async function showCommand(input: string, options: ShowOptions): Promise<number> {
  return withStorage(options, async ({ persistence }, config) => {
    const { header, events } = await persistence.load(await resolveSessionId(persistence, input))
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ type: 'session', ...header })}\n`)
      for (const event of events) process.stdout.write(`${JSON.stringify(event)}\n`)
      return ExitCode.Ok
    }
    const location = persistence.locate(header)
    const where = location?.path ?? '(no dedicated file)'
    const table = resolvePriceTable(config.pricing)
    process.stdout.write(formatTranscript(header, events, colorsFor(process.stdout), where, table))
    return ExitCode.Ok
  })
}

export interface ExportOptions extends ConfigOption {
  format?: string
  /** Write the Claude Code transcript into `~/.claude/projects/<slug>/<id>.jsonl` instead of stdout. */
  toClaudeProjects?: boolean
}

/** `sessions export <id>`: the session in another shape on stdout (read-only). */
export async function exportCommand(input: string, options: ExportOptions): Promise<number> {
  const { EXPORT_FORMATS, exportSession } = await import('./export.js')
  const format = options.format ?? 'claude-code'
  if (!(EXPORT_FORMATS as readonly string[]).includes(format))
    throw usageError(`--format must be one of ${EXPORT_FORMATS.join(', ')} (got ${JSON.stringify(format)})`)
  if (options.toClaudeProjects && format !== 'claude-code')
    throw usageError('--to-claude-projects writes the claude-code format only')
  return withStorage(options, async ({ persistence }, config) => {
    const id = await resolveSessionId(persistence, input)
    const { header, events } = await persistence.load(id)
    if (format !== 'claude-code') {
      process.stdout.write(exportSession(header, events, format as (typeof EXPORT_FORMATS)[number]))
      return ExitCode.Ok
    }
    const { loadSubagents, writeToClaudeProjects } = await import('./export-files.js')
    const subagents = await loadSubagents(persistence, { header, events })
    // Claude Code transcripts carry images inline (base64 image blocks): read them from the store.
    const images = new Map<string, Buffer>()
    for (const sha256 of imageHashesIn(events)) {
      const data = await persistence.getImage(id, sha256)
      if (data) images.set(sha256, data)
    }
    const text = exportSession(header, events, 'claude-code', {
      subagents,
      images,
      prices: resolvePriceTable(config.pricing),
    })
    if (!options.toClaudeProjects) {
      process.stdout.write(text)
      return ExitCode.Ok
    }
    process.stdout.write(`${writeToClaudeProjects(header, text)}\n`)
    return ExitCode.Ok
  })
}

export async function pathCommand(input: string, options: ConfigOption): Promise<number> {
  return withStorage(options, async ({ persistence }, config) => {
    const id = await resolveSessionId(persistence, input)
    const { header } = await persistence.load(id)
    const location = persistence.locate(header)
    if (location) {
      process.stdout.write(`${location.path}\n`)
      return ExitCode.Ok
    }
    const { backend, file } = config.persistence
    let store = ''
    if (backend === 'sqlite') store = ` (it is stored in the database ${file})`
    if (backend === 'postgres') {
      const { describeTarget } = await import('../../persistence/postgres/config.js')
      const target = describeTarget({ url: config.persistence.url, env: process.env })
      store = ` (it is stored in the database ${target}, schema ${config.persistence.schema ?? 'dsh'})`
    }
    process.stdout.write(
      `session ${safeId(id)} has no dedicated file: the ${backend} backend keeps none${store}\n`,
    )
    return ExitCode.Ok
  })
}

/** `sessions rename <id> <title>`: appends a `session/title` event (never to a session another process writes). */
export async function renameCommand(input: string, title: string, options: ConfigOption): Promise<number> {
  const { normalizeTitle, renameStored } = await import('../../history/index.js')
  normalizeTitle(title) // a bad title is refused before the store is opened
  return withStorage(options, async ({ persistence }) => {
    const id = await resolveSessionId(persistence, input)
    await renameStored(persistence, id, title)
    process.stdout.write(`renamed ${safeId(id)}: ${safeText(normalizeTitle(title))}\n`)
    return ExitCode.Ok
  })
}

export interface UnlockOptions extends ConfigOption {
  force?: boolean
}

/** `dsh sessions unlock <id>`: removes a writer lock or lease whose holder is gone. */
export async function unlockCommand(input: string, options: UnlockOptions): Promise<number> {
  return withStorage(options, async ({ persistence }) => {
    const id = await resolveSessionId(persistence, input)
    const holder = await persistence.unlock(id, { force: options.force ?? false })
    process.stdout.write(
      holder
        ? `unlocked session ${safeId(id)} (it was held by process ${holder.pid} on ${holder.hostname})\n`
        : `session ${safeId(id)} was not locked\n`,
    )
    return ExitCode.Ok
  })
}

/** One row of `sessions list`. */
interface SessionRow {
  id: string
  cwd: string | null
  createdAt: number
  lastActivity: number
  events: number
  turns: number
  title: string | null
  parentSession: string | null
  /** `subagent` for a sub-agent session (it belongs to `parentSession`); null otherwise. */
  origin: 'subagent' | null
  /** How the last turn ended (`completed`, `error`, `aborted`, ...), `open` while it runs or after a crash; null before the first turn. */
  outcome: SessionOutcome | null
  /** Sub-agent sessions below this one (all depths when listed at the top). */
  subagents: number
  /** Nesting under the listed parent: 0 at the top (not in --json). */
  depth: number
  path: string | null
  /** Tokens and estimated cost of the session's own requests; null when its log could not be read. */
  usage: UsageTotals | null
  /** A fork's: what its copied turns used in the parent (not in `usage`, so rows add up). */
  inheritedUsage?: UsageTotals
  /** Backends shared by hosts only (PostgreSQL). */
  host?: string
  status?: string
}

interface ListedUsage {
  own: UsageTotals | null
  inherited?: UsageTotals
}

/** The usage of a listed session from the ledger its summary carries, else from its whole log. */
async function ledgerUsage(
  summary: SessionSummary,
  table: PriceTable,
  persistence: SessionPersistence,
): Promise<ListedUsage> {
  const own = priceLedger(summary.usage, table)
  if (own) {
    const inherited = summary.usage.inherited && priceLedger(summary.usage.inherited, table)
    return inherited ? { own, inherited } : { own }
  }
  try {
    const derived = deriveUsage((await persistence.load(summary.header.id)).events, table)
    return derived.inherited
      ? { own: derived.session, inherited: derived.inherited }
      : { own: derived.session }
  } catch {
    // A damaged or locked log still lists; its usage shows as unknown.
    return { own: null }
  }
}

function describe(
  summary: SessionSummary,
  location: SessionLocation | undefined,
  usage: UsageTotals | null,
  depth: number,
  subagents: number,
): SessionRow {
  const { header } = summary
  return {
    id: header.id,
    cwd: header.cwd ?? null,
    createdAt: header.createdAt,
    lastActivity: summary.lastActivity,
    events: summary.eventCount,
    turns: summary.turns,
    title: summary.title ?? null,
    parentSession: header.parentSession ?? null,
    origin: header.origin ?? null,
    outcome: summary.outcome ?? null,
    subagents,
    depth,
    path: location?.path ?? null,
    usage,
    ...(summary.host !== undefined ? { host: summary.host } : {}),
    ...(summary.status !== undefined ? { status: summary.status } : {}),
  }
}

/** Runs `task` on the configured persistence backend, and unloads it. */
export async function withStorage(
  options: ConfigOption,
  task: (storage: Storage, config: ResolvedConfig) => Promise<number>,
): Promise<number> {
  const config = loadConfig(options.config !== undefined ? { file: options.config } : {})
  const storage = await openStorage(config)
  try {
    return await task(storage, config)
  } finally {
    await storage.dispose()
  }
}

/** Stored text as the terminal may show it: escape sequences appear escaped. */
export function safeText(text: string): string {
  return toTerminalText(text, { keepTabs: false })
}

/** A session id as the terminal may show it: bidi controls and invisible characters appear escaped. */
export const safeId = toTerminalId
