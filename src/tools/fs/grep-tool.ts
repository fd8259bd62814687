// The `grep` tool: a regex over files, .gitignore-aware, with glob/type filters, three output
// modes, context lines and capped output. A system `rg` runs when present, else the
// JavaScript searcher; both give the same output.

import { stat } from 'node:fs/promises'
import * as z from 'zod'
import { type SchemaOf, toolParameters } from '../../core/tool-parameters.js'
import type { ToolDefinition } from '../../plugin-api/index.js'
import { searchWithJavaScript } from './grep-js.js'
import { findRipgrep, searchWithRipgrep } from './grep-rg.js'
import type { GrepFileResult, GrepOutcome, GrepQuery } from './grep-types.js'
import { displayPath, outsideNote } from './paths.js'
import { GREP_DESCRIPTION } from './prompts.js'
import { keepTest, keptWarnings, ruleFilter } from './search-rules.js'
import { checkedToolPath, cwdOf, describeFsError, type FsToolServices, failure, isRefusal } from './shared.js'

export const DEFAULT_GREP_FILES = 100
export const DEFAULT_GREP_LINES = 250
const MAX_LINE_CHARS = 500

export const grepParameters = toolParameters('grep', () =>
  z.object({
    pattern: z.string().min(1).describe('The regular expression to search for.'),
    path: z.string().min(1).optional().describe('File or folder to search (default: the working directory).'),
    glob: z.string().min(1).optional().describe('Only files matching this glob, e.g. *.ts or src/**/*.py'),
    type: z.string().min(1).optional().describe('Only files of this type, e.g. ts, js, py, rust, go'),
    output_mode: z
      .enum(['content', 'files_with_matches', 'count'])
      .optional()
      .describe('content: matching lines; files_with_matches (default): paths; count: matches per file'),
    '-i': z.boolean().optional().describe('Ignore case.'),
    '-n': z.boolean().optional().describe('Show line numbers in content mode (default true).'),
    '-A': z.number().int().min(0).optional().describe('Lines of context after each match (content mode).'),
    '-B': z.number().int().min(0).optional().describe('Lines of context before each match (content mode).'),
    '-C': z.number().int().min(0).optional().describe('Lines of context before and after (content mode).'),
    multiline: z.boolean().optional().describe('Let patterns span lines (. matches newlines).'),
    head_limit: z.number().int().positive().optional().describe('Show at most this many entries.'),
  }),
)

export type GrepArguments = z.infer<SchemaOf<typeof grepParameters>>

export interface GrepToolOptions {
  /** Which searcher to use: `auto` (rg when installed), or force one (tests, benchmarks). */
  engine?: 'auto' | 'rg' | 'js'
}

export function createGrepTool(
  services: Pick<FsToolServices, 'hidden' | 'searchRules'>,
  options: GrepToolOptions = {},
): ToolDefinition<SchemaOf<typeof grepParameters>> {
  return {
    name: 'grep',
    description: GREP_DESCRIPTION,
    get parameters() {
      return grepParameters.schema()
    },
    parametersJsonSchema: grepParameters.jsonSchema,
    async execute(args, execution) {
      const cwd = cwdOf(execution)
      const target = checkedToolPath(services, execution, args.path ?? '.', 'read')
      if (isRefusal(target)) return target
      let targetIsFile: boolean
      try {
        targetIsFile = !(await stat(target.absolute)).isDirectory()
      } catch (error) {
        return failure(describeFsError(error, target.display))
      }
      const mode = args.output_mode ?? 'files_with_matches'
      const ruled = ruleFilter(services.searchRules, execution, 'grep', args, target.absolute)
      if ('refusal' in ruled) return failure(ruled.refusal)
      const filter = ruled.filter
      const keep = keepTest(services.hidden.walkFilter(execution, target.absolute), filter)
      const query: GrepQuery = {
        pattern: args.pattern,
        target: target.absolute,
        targetIsFile,
        ...(args.glob ? { glob: args.glob } : {}),
        ...(args.type ? { type: args.type } : {}),
        ignoreCase: args['-i'] === true,
        multiline: args.multiline === true,
        mode,
        before: args['-B'] ?? args['-C'] ?? 0,
        after: args['-A'] ?? args['-C'] ?? 0,
        signal: execution.signal,
        ...(keep ? { keep } : {}),
      }
      let outcome: GrepOutcome
      try {
        outcome = await search(query, options.engine ?? 'auto')
        // Both searchers apply `keep`; once more here, so no searcher can let a file through.
        if (keep) outcome = { ...outcome, files: outcome.files.filter((file) => keep(file.path)) }
      } catch (error) {
        return failure(`grep: ${(error as Error).message}`)
      }
      const body = await render(outcome, mode, args, cwd)
      const problems = keptWarnings(outcome.warnings, keep)
      const warnings = problems.length > 0 ? `\n[some files could not be searched: ${problems[0]}]` : ''
      const note = filter?.note ? `\n${filter.note}` : ''
      return { content: body + warnings + outsideNote(target) + note }
    },
  }
}

function search(query: GrepQuery, engine: 'auto' | 'rg' | 'js'): Promise<GrepOutcome> {
  const rg = engine === 'js' ? undefined : findRipgrep()
  if (engine === 'rg' && !rg) throw new Error('rg is not installed')
  return rg ? searchWithRipgrep(rg, query) : searchWithJavaScript(query)
}

async function render(
  outcome: GrepOutcome,
  mode: GrepQuery['mode'],
  args: GrepArguments,
  cwd: string,
): Promise<string> {
  const files = outcome.files
  if (files.length === 0) return 'No matches found'
  if (mode === 'files_with_matches') {
    const dated = await Promise.all(files.map(async (file) => ({ file, mtimeMs: await mtimeOf(file.path) })))
    dated.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.path.localeCompare(b.file.path))
    const limit = args.head_limit ?? DEFAULT_GREP_FILES
    const shown = dated.slice(0, limit).map((entry) => displayPath(cwd, entry.file.path))
    const header = `Found ${files.length} file${files.length === 1 ? '' : 's'}`
    return [header, ...shown, ...more(files.length - shown.length, 'file')].join('\n')
  }
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  if (mode === 'count') {
    const limit = args.head_limit ?? DEFAULT_GREP_FILES
    const total = sorted.reduce((sum, file) => sum + file.count, 0)
    const shown = sorted.slice(0, limit).map((file) => `${displayPath(cwd, file.path)}:${file.count}`)
    const header = `${total} matching line${total === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'}`
    return [header, ...shown, ...more(files.length - shown.length, 'file')].join('\n')
  }
  return renderContent(sorted, args, cwd)
}

function renderContent(files: readonly GrepFileResult[], args: GrepArguments, cwd: string): string {
  const limit = args.head_limit ?? DEFAULT_GREP_LINES
  const numbers = args['-n'] !== false
  const out: string[] = []
  let total = 0
  for (const file of files) {
    const name = displayPath(cwd, file.path)
    let previous: number | undefined
    for (const line of file.lines) {
      total += 1
      if (out.length >= limit) continue
      if (previous !== undefined && line.line > previous + 1) out.push('--')
      previous = line.line
      const text =
        line.text.length > MAX_LINE_CHARS ? `${line.text.slice(0, MAX_LINE_CHARS)} …[cut]` : line.text
      const separator = line.match ? ':' : '-'
      out.push(numbers ? `${name}${separator}${line.line}${separator}${text}` : `${name}${separator}${text}`)
    }
  }
  const shownLines = out.filter((line) => line !== '--').length
  return [...out, ...more(total - shownLines, 'line')].join('\n')
}

function more(count: number, what: string): string[] {
  return count > 0
    ? [`[${count} more ${what}${count === 1 ? '' : 's'} not shown; narrow the search or raise head_limit]`]
    : []
}

async function mtimeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs
  } catch {
    // Gone since the search: sort it last.
    return 0
  }
}
