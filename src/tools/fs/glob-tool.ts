// The `glob` tool: files matching a pattern under a folder, .gitignore-aware, newest first,
// capped with a count of what was left out.

import { statSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { isAbsolute } from 'node:path'
import picomatch from 'picomatch'
import * as z from 'zod'
import { errorMessage } from '../../core/errors.js'
import { type SchemaOf, toolParameters } from '../../core/tool-parameters.js'
import type { ToolDefinition } from '../../plugin-api/index.js'
import { displayPath, outsideNote } from './paths.js'
import { GLOB_DESCRIPTION } from './prompts.js'
import { keepTest, ruleFilter } from './search-rules.js'
import { checkedToolPath, cwdOf, describeFsError, type FsToolServices, failure, isRefusal } from './shared.js'
import { walkFiles } from './walk.js'

export const MAX_GLOB_RESULTS = 100

export const globParameters = toolParameters('glob', () =>
  z.object({
    pattern: z.string().min(1).describe('The glob, e.g. **/*.ts'),
    path: z.string().min(1).optional().describe('The folder to search in (default: the working directory).'),
  }),
)

export function createGlobTool(
  services: Pick<FsToolServices, 'hidden' | 'searchRules'>,
): ToolDefinition<SchemaOf<typeof globParameters>> {
  return {
    name: 'glob',
    description: GLOB_DESCRIPTION,
    get parameters() {
      return globParameters.schema()
    },
    parametersJsonSchema: globParameters.jsonSchema,
    // An absolute pattern carries its own base folder: rules judge that folder, as they judge
    // `path` (which such a pattern overrides), before anything is listed.
    permissionSubject(input) {
      const pattern = input.pattern
      if (typeof pattern !== 'string' || !isAbsolute(pattern)) return undefined
      return { tool: 'Glob', input: { ...input, path: absolutePatternBase(pattern) } }
    },
    async execute(args, execution) {
      const cwd = cwdOf(execution)
      let pattern = args.pattern
      let base = args.path
      if (isAbsolute(pattern)) {
        // An absolute pattern carries its own base folder.
        base = absolutePatternBase(pattern)
        pattern = picomatch.scan(pattern).glob || '**'
      }
      const folder = checkedToolPath(services, execution, base ?? '.', 'read')
      if (isRefusal(folder)) return folder
      try {
        if (!(await stat(folder.absolute)).isDirectory()) return failure(`${folder.display} is not a folder`)
      } catch (error) {
        return failure(describeFsError(error, folder.display))
      }
      const ruled = ruleFilter(services.searchRules, execution, 'glob', args, folder.absolute)
      if ('refusal' in ruled) return failure(ruled.refusal)
      const filter = ruled.filter
      const matches = picomatch(pattern, { dot: true })
      const keep = keepTest(services.hidden.walkFilter(execution, folder.absolute), filter) ?? (() => true)
      const found: string[] = []
      try {
        await walkFiles(folder.absolute, {
          signal: execution.signal,
          onFile(entry) {
            if (matches(entry.relative) && keep(entry.path)) found.push(entry.path)
            return undefined
          },
        })
      } catch (error) {
        return failure(
          `glob refused: the results could not be checked against the permission rules (${errorMessage(error)})`,
        )
      }
      const note = filter?.note ? `\n${filter.note}` : ''
      if (found.length === 0)
        return { content: `No files match ${args.pattern}${outsideNote(folder)}${note}` }
      // statSync: thousands of async stats cost more in thread-pool round trips than the stats.
      const dated = found.map((path) => ({ path, mtimeMs: mtimeOf(path) }))
      dated.sort((a, b) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path))
      const shown = dated.slice(0, MAX_GLOB_RESULTS).map((entry) => displayPath(cwd, entry.path))
      const more = dated.length - shown.length
      if (more > 0)
        shown.push(`[${more} more file${more === 1 ? '' : 's'} matched; narrow the pattern or path]`)
      return { content: shown.join('\n') + outsideNote(folder) + note }
    },
  }
}

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs
  } catch {
    // Deleted between the walk and now: sort it last.
    return 0
  }
}

/** The folder an absolute pattern starts from (`/p/src/**` → `/p/src`). */
function absolutePatternBase(pattern: string): string {
  return picomatch.scan(pattern).base || '/'
}
