// `dsh sessions search <query>`: the history service's search, shown as a ranked list
// (title, folder, age, turn and a snippet with the match highlighted; plain when stdout
// is not a terminal) or as JSON. Never writes.

import { isDshError } from '../../core/errors.js'
import {
  HistoryErrorCode,
  parseDateFilter,
  parseQuery,
  type SearchResult,
  searchSessions,
} from '../../history/index.js'
import { formatAge } from '../shared/age.js'
import type { Colors } from '../shared/colors.js'
import { ExitCode, usageError } from '../shared/errors.js'
import { resolveCwd } from '../shared/options.js'
import { colorsFor } from '../shared/render.js'
import { safeId, safeText, withStorage } from './sessions.js'

export interface SearchCommandOptions {
  config?: string
  all?: boolean
  cwd?: string
  since?: string
  until?: string
  model?: string
  status?: string
  reasoning?: boolean
  limit?: string
  json?: boolean
}

export async function searchCommand(words: string[], options: SearchCommandOptions): Promise<number> {
  const query = words.join(' ')
  const now = Date.now()
  let limit: number | undefined
  try {
    parseQuery(query) // a bad query is refused before any storage is opened
    if (options.limit !== undefined) {
      limit = Number(options.limit)
      if (!Number.isInteger(limit) || limit < 1)
        throw usageError(`--limit must be a positive integer (got ${JSON.stringify(options.limit)})`)
    }
  } catch (error) {
    throw asUsage(error)
  }
  const since =
    options.since === undefined ? undefined : usage(() => parseDateFilter('--since', options.since!, now))
  const until =
    options.until === undefined ? undefined : usage(() => parseDateFilter('--until', options.until!, now))
  const cwd = options.all ? undefined : resolveCwd(options.cwd)
  return withStorage(options, async ({ persistence }) => {
    const results = await searchSessions(persistence, {
      query,
      cwd,
      since,
      until,
      model: options.model,
      status: options.status,
      reasoning: options.reasoning,
      limit,
      now,
      onSkipped: (where, reason) =>
        process.stderr.write(`dsh: warning: skipped ${safeText(where)}: ${safeText(reason)}\n`),
    })
    if (options.json) {
      process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
      return ExitCode.Ok
    }
    if (results.length === 0) {
      const where = cwd === undefined ? '' : ` in ${cwd} (--all searches every folder)`
      process.stdout.write(`no sessions match ${JSON.stringify(query)}${where}\n`)
      return ExitCode.Ok
    }
    const colors = colorsFor(process.stdout)
    process.stdout.write(
      results.map((result) => formatResult(result, colors, now, cwd === undefined)).join(''),
    )
    return ExitCode.Ok
  })
}

/** Two lines per result: id, age, folder and title; then turn, kind and the snippet. */
export function formatResult(result: SearchResult, colors: Colors, now: number, showFolder: boolean): string {
  const title = result.title === undefined ? colors.dim('(no title)') : colors.bold(safeText(result.title))
  const folder = showFolder && result.cwd !== undefined ? `  ${colors.dim(safeText(result.cwd))}` : ''
  const head = `${colors.cyan(safeId(result.sessionId))}  ${formatAge(result.lastActivity, now)} ago${folder}  ${title}\n`
  const where = result.turn > 0 ? `turn ${result.turn}` : 'before turn 1'
  return `${head}  ${colors.dim(`${where} · ${result.kind}:`)} ${highlight(result, colors)}\n`
}

function highlight(result: SearchResult, colors: Colors): string {
  let text = ''
  let at = 0
  for (const [from, to] of result.highlights) {
    text +=
      safeText(result.snippet.slice(at, from)) +
      colors.yellow(colors.bold(safeText(result.snippet.slice(from, to))))
    at = to
  }
  return text + safeText(result.snippet.slice(at))
}

function usage<T>(run: () => T): T {
  try {
    return run()
  } catch (error) {
    throw asUsage(error)
  }
}

function asUsage(error: unknown): unknown {
  if (isDshError(error, HistoryErrorCode.InvalidQuery) || isDshError(error, HistoryErrorCode.InvalidFilter)) {
    return usageError(error.message)
  }
  return error
}
