// `dsh sessions list|show|path|unlock`: stored sessions, read through the configured
// persistence backend without starting an agent. Only `unlock` ever writes.

import { loadConfig, type ResolvedConfig } from '../../config/load.js'
import { toTerminalText } from '../../core/terminal-text.js'
import type { SessionLocation } from '../../persistence/types.js'
import type { SessionSummary } from '../../session/types.js'
import { ExitCode } from './errors.js'
import { resolveCwd } from './options.js'
import { colorsFor } from './render.js'
import { openStorage, type Storage } from './storage.js'
import { formatAge, formatTable, formatTranscript } from './transcript.js'

interface ConfigOption {
  config?: string
}

export interface ListOptions extends ConfigOption {
  all?: boolean
  cwd?: string
  json?: boolean
}

export async function listCommand(options: ListOptions): Promise<number> {
  const cwd = options.all ? undefined : resolveCwd(options.cwd)
  return withStorage(options, async ({ persistence, list }) => {
    const stored = await list()
    const shown = cwd === undefined ? stored : stored.filter((summary) => summary.header.cwd === cwd)
    const rows = shown.map((summary) => describe(summary, persistence.locate(summary.header)))
    if (options.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
      return ExitCode.Ok
    }
    if (rows.length === 0) {
      process.stdout.write(
        cwd === undefined
          ? 'no stored sessions\n'
          : `no sessions in ${cwd} (dsh sessions list --all shows every folder)\n`,
      )
      return ExitCode.Ok
    }
    const colors = colorsFor(process.stdout)
    const now = Date.now()
    const header = options.all ? ['ID', 'AGE', 'TURNS', 'FOLDER', 'TITLE'] : ['ID', 'AGE', 'TURNS', 'TITLE']
    const table = rows.map((row) => {
      const cells = [safe(row.id), formatAge(row.lastActivity, now), String(row.turns)]
      if (options.all) cells.push(row.cwd !== null ? safe(row.cwd) : '-')
      cells.push(row.title !== null ? safe(row.title) : colors.dim('(no prompt yet)'))
      return cells
    })
    process.stdout.write(`${formatTable(table, colors, header)}\n`)
    return ExitCode.Ok
  })
}

export interface ShowOptions extends ConfigOption {
  json?: boolean
}

export async function showCommand(id: string, options: ShowOptions): Promise<number> {
  return withStorage(options, async ({ persistence }) => {
    const { header, events } = await persistence.load(id)
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ type: 'session', ...header })}\n`)
      for (const event of events) process.stdout.write(`${JSON.stringify(event)}\n`)
      return ExitCode.Ok
    }
    const location = persistence.locate(header)
    const where = location?.path ?? '(no dedicated file)'
    process.stdout.write(formatTranscript(header, events, colorsFor(process.stdout), where))
    return ExitCode.Ok
  })
}

export async function pathCommand(id: string, options: ConfigOption): Promise<number> {
  return withStorage(options, async ({ persistence }, config) => {
    const { header } = await persistence.load(id)
    const location = persistence.locate(header)
    if (location) {
      process.stdout.write(`${location.path}\n`)
      return ExitCode.Ok
    }
    const { backend, file } = config.persistence
    const store = backend === 'sqlite' ? ` (it is stored in the database ${file})` : ''
    process.stdout.write(`session ${id} has no dedicated file: the ${backend} backend keeps none${store}\n`)
    return ExitCode.Ok
  })
}

export interface UnlockOptions extends ConfigOption {
  force?: boolean
}

/** `dsh sessions unlock <id>`: removes a writer lock or lease whose holder is gone. */
export async function unlockCommand(id: string, options: UnlockOptions): Promise<number> {
  return withStorage(options, async ({ persistence }) => {
    const holder = await persistence.unlock(id, { force: options.force ?? false })
    process.stdout.write(
      holder
        ? `unlocked session ${id} (it was held by process ${holder.pid} on ${holder.hostname})\n`
        : `session ${id} was not locked\n`,
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
  path: string | null
}

function describe(summary: SessionSummary, location: SessionLocation | undefined): SessionRow {
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
    path: location?.path ?? null,
  }
}

/** Runs `task` on the configured persistence backend, and unloads it. */
async function withStorage(
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
function safe(text: string): string {
  return toTerminalText(text, { keepTabs: false })
}
