// The `read` tool: numbered lines, paged; images returned to a vision model (described to
// others); other binary files refused; every
// read recorded so `write` and `edit` can tell whether the agent saw the current content.

import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import * as z from 'zod'
import { formatBytes as formatImageBytes, prepareImageData } from '../../attachments/prepare.js'
import { type SchemaOf, toolParameters } from '../../core/tool-parameters.js'
import { sniffImageType } from '../../llm/image-format.js'
import type { PreparedImage, ToolDefinition, ToolOutput } from '../../plugin-api/index.js'
import { outsideNote, realOrSelf } from './paths.js'
import { READ_DESCRIPTION } from './prompts.js'
import { stampOf } from './read-state.js'
import { checkedToolPath, describeFsError, type FsToolServices, failure, isRefusal } from './shared.js'
import { decodeText, looksBinary, readTextFile, toModelText } from './text-file.js'

export const DEFAULT_READ_LINES = 2000
export const MAX_LINE_CHARS = 2000
/** Output beyond this many characters stops the page early, with a note how to read on. */
export const MAX_READ_CHARS = 100_000

export const readParameters = toolParameters('read', () =>
  z.object({
    file_path: z
      .string()
      .min(1)
      .describe('The file to read (absolute, or relative to the working directory).'),
    offset: z.number().int().positive().optional().describe('The 1-based line number to start at.'),
    limit: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(`How many lines to read (default ${DEFAULT_READ_LINES}).`),
  }),
)

const IMAGE_TYPES: readonly [string, (b: Buffer) => boolean][] = [
  [
    'PNG image',
    (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  ],
  ['JPEG image', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['GIF image', (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  [
    'WebP image',
    (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  ],
  ['PDF document', (b) => b.subarray(0, 5).toString('latin1') === '%PDF-'],
]

export function createReadTool(services: FsToolServices): ToolDefinition<SchemaOf<typeof readParameters>> {
  return {
    name: 'read',
    description: READ_DESCRIPTION,
    get parameters() {
      return readParameters.schema()
    },
    parametersJsonSchema: readParameters.jsonSchema,
    async execute(args, execution) {
      const target = checkedToolPath(services, execution, args.file_path, 'read')
      if (isRefusal(target)) return target
      let loaded: Awaited<ReturnType<typeof readTextFile>>
      let mtimeMs: number
      try {
        const info = await stat(target.absolute)
        if (info.isDirectory()) return failure(`${target.display} is a folder; use ls to list it`)
        loaded = await readTextFile(target.absolute)
        mtimeMs = info.mtimeMs
      } catch (error) {
        return failure(describeFsError(error, target.display))
      }
      const { bytes } = loaded
      if (sniffImageType(bytes) !== undefined) {
        services.reads.record(execution, stampOf(realOrSelf(target.absolute), bytes, mtimeMs))
        return readImage(bytes, target.display, execution.takesImages === true)
      }
      if (looksBinary(bytes)) {
        const kind = IMAGE_TYPES.find(([, test]) => test(bytes))?.[0] ?? 'binary file'
        return failure(
          `${target.display} is a ${kind} (${formatBytes(bytes.length)}); it is not shown as text.`,
        )
      }
      services.reads.record(execution, stampOf(realOrSelf(target.absolute), bytes, mtimeMs))
      if (bytes.length === 0) {
        return {
          content: `(${target.display} is empty)${outsideNote(target)}`,
          details: readResponse(target.absolute, { text: '', lines: [], startLine: 1, totalLines: 0 }),
        }
      }
      const page = readPage(toModelText(decodeText(bytes)), args.offset ?? 1, args.limit, target.display)
      return { content: page.text + outsideNote(target), details: readResponse(target.absolute, page) }
    },
  }
}

/**
 * An image file: returned as an image to a model that takes them (as Claude Code's Read
 * does), described in one line otherwise. The line describes the file on disk; when dsh
 * sent it downscaled or in another format, it says so. A file that does not decode is an
 * error either way.
 */
async function readImage(bytes: Buffer, display: string, takesImages: boolean): Promise<ToolOutput> {
  let image: PreparedImage
  try {
    image = await prepareImageData(bytes, basename(display), display)
  } catch (error) {
    return failure((error as Error).message)
  }
  const { ref } = image
  const source = ref.resizedFrom ?? { width: ref.width, height: ref.height }
  const kind = formatName(sniffImageType(bytes) ?? ref.mediaType)
  const file = `${display} is a ${kind} image, ${source.width}×${source.height}, ${formatImageBytes(bytes.length)}`
  if (!takesImages) return { content: `${file}; the model in use does not take images, so it is not shown.` }
  return { content: `${file}${sentAs(image, kind)}; the image follows.`, images: [image] }
}

/** `PNG` for `image/png`. */
function formatName(mediaType: string): string {
  return mediaType.slice('image/'.length).toUpperCase()
}

/** ` (sent as PNG, downscaled to 2048×1536)` when what is sent is not the file's own bytes, else ''. */
function sentAs({ ref }: PreparedImage, kind: string): string {
  if (!ref.resizedFrom) return ''
  const changes: string[] = []
  if (formatName(ref.mediaType) !== kind) changes.push(`as ${formatName(ref.mediaType)}`)
  if (ref.width !== ref.resizedFrom.width || ref.height !== ref.resizedFrom.height)
    changes.push(`downscaled to ${ref.width}×${ref.height}`)
  if (changes.length === 0) changes.push(`re-encoded, ${formatImageBytes(ref.bytes)}`)
  return ` (sent ${changes.join(', ')})`
}

/** Lines `offset`.. as `cat -n` would number them, with notes for cut lines and what is left. */
export function renderPage(text: string, offset: number, limit: number | undefined, display: string): string {
  return readPage(text, offset, limit, display).text
}

interface Page {
  /** What the model sees: numbered lines and notes. */
  text: string
  /** The lines shown, without numbers (long ones uncut). */
  lines: string[]
  startLine: number
  totalLines: number
}

/**
 * Claude Code's Read result for a text file, which its PostToolUse hooks get as
 * `tool_response`: `{type: "text", file: {filePath, content, numLines, startLine, totalLines}}`.
 */
function readResponse(filePath: string, page: Page) {
  return {
    hookResponse: {
      type: 'text',
      file: {
        filePath,
        content: page.lines.join('\n'),
        numLines: page.lines.length,
        startLine: page.startLine,
        totalLines: page.totalLines,
      },
    },
  }
}

function readPage(text: string, offset: number, limit: number | undefined, display: string): Page {
  const lines = text.split('\n')
  if (text.endsWith('\n')) lines.pop()
  const total = lines.length
  if (offset > total) {
    const note = `(${display} has ${total} lines; offset ${offset} is past the end)`
    return { text: note, lines: [], startLine: offset, totalLines: total }
  }
  const want = limit ?? DEFAULT_READ_LINES
  const out: string[] = []
  let chars = 0
  let cut = 0
  let index = offset - 1
  for (; index < total && index < offset - 1 + want; index++) {
    let line = lines[index]!
    if (line.length > MAX_LINE_CHARS) {
      line = `${line.slice(0, MAX_LINE_CHARS)} … [line cut: ${line.length} characters]`
      cut += 1
    }
    const numbered = `${String(index + 1).padStart(6)}\t${line}`
    if (chars + numbered.length > MAX_READ_CHARS && out.length > 0) break
    chars += numbered.length + 1
    out.push(numbered)
  }
  const notes: string[] = []
  if (cut > 0)
    notes.push(`${cut} long line${cut === 1 ? ' was' : 's were'} cut at ${MAX_LINE_CHARS} characters`)
  if (index < total) {
    notes.push(`showing lines ${offset}-${index} of ${total}; read on with offset=${index + 1}`)
  }
  const shown = lines.slice(offset - 1, offset - 1 + out.length)
  const rendered = notes.length > 0 ? `${out.join('\n')}\n[${notes.join('; ')}]` : out.join('\n')
  return { text: rendered, lines: shown, startLine: offset, totalLines: total }
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} bytes`
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`
  return `${(size / 1024 / 1024).toFixed(1)} MB`
}
