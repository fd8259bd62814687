// The `ls` tool: one folder's entries, folders first, .gitignore-aware, capped.

import type { Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import picomatch from 'picomatch'
import * as z from 'zod'
import { type SchemaOf, toolParameters } from '../../core/tool-parameters.js'
import type { ToolDefinition } from '../../plugin-api/index.js'
import { outsideNote } from './paths.js'
import { LS_DESCRIPTION } from './prompts.js'
import { checkedToolPath, describeFsError, type FsToolServices, failure, isRefusal } from './shared.js'
import { ignoreCheckerFor } from './walk.js'

export const MAX_LS_ENTRIES = 1000

export const lsParameters = toolParameters('ls', () =>
  z.object({
    path: z.string().min(1).optional().describe('The folder to list (default: the working directory).'),
    ignore: z.array(z.string().min(1)).optional().describe('Glob patterns of names to leave out.'),
  }),
)

export function createLsTool(
  services: Pick<FsToolServices, 'hidden'>,
): ToolDefinition<SchemaOf<typeof lsParameters>> {
  return {
    name: 'ls',
    description: LS_DESCRIPTION,
    get parameters() {
      return lsParameters.schema()
    },
    parametersJsonSchema: lsParameters.jsonSchema,
    async execute(args, execution) {
      const folder = checkedToolPath(services, execution, args.path ?? '.', 'read')
      if (isRefusal(folder)) return folder
      let entries: Dirent[]
      try {
        entries = await readdir(folder.absolute, { withFileTypes: true })
      } catch (error) {
        return failure(describeFsError(error, folder.display))
      }
      const skip = args.ignore?.length ? picomatch(args.ignore, { dot: true }) : () => false
      const kept: string[] = []
      let ignored = 0
      const isIgnored = await ignoreCheckerFor(folder.absolute)
      for (const entry of entries) {
        if (entry.name === '.git' || skip(entry.name)) continue
        // A name git ignores is left out, as `git ls-files` would.
        if (isIgnored(join(folder.absolute, entry.name), entry.isDirectory())) {
          ignored += 1
          continue
        }
        kept.push(
          entry.isDirectory() ? `${entry.name}/` : entry.isSymbolicLink() ? `${entry.name}@` : entry.name,
        )
      }
      kept.sort((a, b) => Number(b.endsWith('/')) - Number(a.endsWith('/')) || a.localeCompare(b))
      const shown = kept.slice(0, MAX_LS_ENTRIES)
      const notes: string[] = []
      if (kept.length > shown.length) notes.push(`[${kept.length - shown.length} more entries not shown]`)
      if (ignored > 0) notes.push(`[${ignored} entr${ignored === 1 ? 'y' : 'ies'} ignored by .gitignore]`)
      const header = `${folder.display}/${outsideNote(folder)}`
      if (shown.length === 0)
        return { content: `${header}\n(empty)${notes.length ? `\n${notes.join('\n')}` : ''}` }
      return { content: [header, ...shown.map((name) => `  ${name}`), ...notes].join('\n') }
    },
  }
}
