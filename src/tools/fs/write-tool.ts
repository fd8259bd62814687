// The `write` tool: a whole file, folders created. An existing file must have been read in
// this session and be unchanged since, so the model never overwrites what it has not seen.

import { mkdir, readFile, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import * as z from 'zod'
import { type SchemaOf, toolParameters } from '../../core/tool-parameters.js'
import type { ToolDefinition } from '../../plugin-api/index.js'
import { formatDiff, patchHunks } from './diff.js'
import { outsideNote, realOrSelf } from './paths.js'
import { WRITE_DESCRIPTION } from './prompts.js'
import {
  checkedToolPath,
  commitChange,
  describeFsError,
  type FsToolServices,
  failure,
  isRefusal,
} from './shared.js'
import { decodeText, encodeText, fromModelText, looksBinary, toModelText } from './text-file.js'

export const writeParameters = toolParameters('write', () =>
  z.object({
    file_path: z
      .string()
      .min(1)
      .describe('The file to write (absolute, or relative to the working directory).'),
    content: z.string().describe('The complete content of the file.'),
  }),
)

export function createWriteTool(services: FsToolServices): ToolDefinition<SchemaOf<typeof writeParameters>> {
  return {
    name: 'write',
    description: WRITE_DESCRIPTION,
    get parameters() {
      return writeParameters.schema()
    },
    parametersJsonSchema: writeParameters.jsonSchema,
    async execute(args, execution) {
      const target = checkedToolPath(services, execution, args.file_path, 'write')
      if (isRefusal(target)) return target
      const real = realOrSelf(target.absolute)
      let before: Buffer | null = null
      try {
        const info = await stat(real)
        if (info.isDirectory()) return failure(`${target.display} is a folder, not a file`)
        before = await readFile(real)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
          return failure(describeFsError(error, target.display))
      }
      try {
        if (before === null) {
          await mkdir(dirname(real), { recursive: true })
          await commitChange(services, execution, target, null, Buffer.from(args.content, 'utf8'))
          const lines =
            args.content === '' ? 0 : args.content.split('\n').length - (args.content.endsWith('\n') ? 1 : 0)
          return {
            content: `Created ${target.display} (${lines} line${lines === 1 ? '' : 's'})${outsideNote(target)}`,
            details: writeResponse('create', target.absolute, args.content, null),
          }
        }
        const fresh = await services.reads.checkFresh(execution, real, target.display, before)
        if (!fresh.ok) return failure(fresh.message)
        // A text file keeps its encoding and line endings; the model writes LF text.
        const old = looksBinary(before) ? undefined : decodeText(before)
        const bytes = old
          ? encodeText(fromModelText(args.content, old.eol), old.encoding)
          : Buffer.from(args.content, 'utf8')
        await commitChange(services, execution, target, before, bytes)
        const original = old ? toModelText(old) : null
        const response = writeResponse('update', target.absolute, args.content, original)
        const diff =
          original === null
            ? '(binary file replaced)'
            : formatDiff(target.display, response.hookResponse.structuredPatch)
        return { content: `Wrote ${target.display}${outsideNote(target)}\n${diff}`, details: response }
      } catch (error) {
        return failure(describeFsError(error, target.display))
      }
    },
  }
}

/**
 * Claude Code's Write result, which its PostToolUse hooks get as `tool_response`:
 * `type` create or update, the absolute `filePath`, the new `content`, the hunks, and the
 * text before (`null` for a new file; also for a replaced binary file, which has no text).
 */
function writeResponse(
  type: 'create' | 'update',
  filePath: string,
  content: string,
  original: string | null,
) {
  return {
    hookResponse: {
      type,
      filePath,
      content,
      structuredPatch: patchHunks(original ?? '', content),
      originalFile: original,
    },
  }
}
