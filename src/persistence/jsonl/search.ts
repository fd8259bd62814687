// Session search over JSONL logs: ripgrep, when installed, picks the lines that may
// match (their turns are looked up afterwards, for the results only); without it a
// streaming reader goes through each log line by line. Neither loads a whole log into
// memory, and a log with a damaged line is skipped with a warning naming it.

import { spawn } from 'node:child_process'
import { createReadStream, existsSync, statSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { basename, delimiter, join, sep } from 'node:path'
import { createInterface } from 'node:readline'
import { errorMessage } from '../../core/errors.js'
import type { SessionId } from '../../session/types.js'
import { withoutPtyMasters } from '../../shell/index.js'
import {
  DocumentWalker,
  SEARCHED_EVENT_TYPES,
  type SearchDocument,
  type SearchRequest,
} from '../search-text.js'
import { bucketDirs } from './catalog.js'
import { decodeSessionId, LOG_SUFFIX } from './layout.js'
import { headerIdOf } from './log-summary.js'

/** Written literally by `eventLines` at the start of every line: `{"seq":N,"type":"…"`. */
const TYPE_PATTERN = /^\{"seq":\d+,"type":"([^"]+)"/
const TURN_START_MARK = '"type":"turn/start"'
const SEQ_PATTERN = /^\{"seq":(\d+),/
const SEARCHED = new Set<string>(SEARCHED_EVENT_TYPES)

/** The `rg` executable on PATH, or undefined. Looked up once per process. */
let ripgrepOnPath: string | null | undefined
export function findRipgrep(): string | undefined {
  if (ripgrepOnPath === undefined) {
    ripgrepOnPath = null
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      const candidate = join(dir, 'rg')
      if (dir !== '' && existsSync(candidate) && statSync(candidate).isFile()) {
        ripgrepOnPath = candidate
        break
      }
    }
  }
  return ripgrepOnPath ?? undefined
}

/**
 * Candidate documents of the logs under `dirs` (bucket folders, or the root), each passed
 * to `visit` once its log was read without damage. Resolves with the file of every
 * session that had one. `ripgrep`: the executable, or undefined for the streaming reader.
 */
export async function searchLogs(
  dirs: string[],
  request: SearchRequest,
  ripgrep: string | undefined,
  visit: (doc: SearchDocument) => void,
): Promise<Map<SessionId, string>> {
  const files = new Map<SessionId, string>()
  const existing = dirs.filter((dir) => existsSync(dir))
  if (existing.length === 0) return files
  const needles = [...new Set(request.terms.flatMap((term) => term.tokens))]
  const perFile = new FileDocuments(request, visit, files, ripgrep === undefined)
  if (ripgrep) await ripgrepLines(ripgrep, existing, needles, perFile)
  else await streamLines(existing, needles, perFile)
  perFile.flush()
  return files
}

/** Buffers one log's documents until the log is done: a damaged line drops them all. */
class FileDocuments {
  private file: string | undefined
  private id: SessionId | undefined
  private walker: DocumentWalker | undefined
  private docs: SearchDocument[] = []
  private damaged = false

  constructor(
    private readonly request: SearchRequest,
    private readonly visit: (doc: SearchDocument) => void,
    private readonly files: Map<SessionId, string>,
    /** Whether every `turn/start` line is passed on (the streaming reader), so documents know their turn. */
    private readonly turns: boolean,
  ) {}

  line(file: string, text: string): void {
    if (file !== this.file) this.start(file)
    if (this.damaged || this.id === undefined) return
    const type = TYPE_PATTERN.exec(text)?.[1]
    if (type === undefined) {
      if (text.startsWith('{"type":"session"')) return // the header line
      this.fail(file, 'a line is not an event')
      return
    }
    if (type !== 'turn/start' && !SEARCHED.has(type)) return
    let event: { seq: number; type: string; data: unknown }
    try {
      event = JSON.parse(text)
    } catch (error) {
      this.fail(file, `a line is not JSON (${errorMessage(error)}): the log is damaged or half-written`)
      return
    }
    this.walker!.event(event)
  }

  flush(): void {
    if (this.file !== undefined && !this.damaged && this.id !== undefined) {
      if (this.docs.length > 0) this.files.set(this.id, this.file)
      for (const doc of this.docs) this.visit(doc)
    }
    this.docs = []
  }

  /** A log (or, for a whole run, several) that could not be read: named, its documents dropped. */
  warn(where: string, reason: string): void {
    if (where === this.file) {
      this.damaged = true
      this.docs = []
    }
    this.request.onSkipped?.(where, reason)
  }

  private start(file: string): void {
    this.flush()
    this.file = file
    this.damaged = false
    const stem = basename(file, LOG_SUFFIX)
    this.id = decodeSessionId(stem) ?? headerIdOf(file)
    if (this.id === undefined) {
      this.fail(file, 'its header cannot be read')
      return
    }
    this.walker = new DocumentWalker(
      this.id,
      this.request.reasoning,
      (doc) => this.docs.push(doc),
      this.turns,
    )
  }

  private fail(file: string, reason: string): void {
    this.damaged = true
    this.docs = []
    this.request.onSkipped?.(file, reason)
  }
}

/**
 * Runs `rg -F -i` for every token over the logs; its output keeps each file's lines
 * together and in order (`--null` ends the file name with NUL).
 */
async function ripgrepLines(
  ripgrep: string,
  dirs: string[],
  needles: string[],
  perFile: FileDocuments,
): Promise<void> {
  const args = [
    '--no-config',
    '--fixed-strings',
    '--ignore-case',
    '--no-ignore',
    '--hidden',
    '--no-heading',
    '--with-filename',
    '--null',
    '--no-line-number',
    '--color=never',
    '--glob',
    `*${LOG_SUFFIX}`,
    ...needles.flatMap((needle) => ['-e', needle]),
    '--',
    ...dirs,
  ]
  const child = spawn(ripgrep, args, { stdio: withoutPtyMasters(['ignore', 'pipe', 'pipe']) })
  let stderr = ''
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk
  })
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', resolve)
  })
  const lines = createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY })
  for await (const line of lines) {
    const cut = line.indexOf('\u0000')
    if (cut > 0) perFile.line(line.slice(0, cut), line.slice(cut + 1))
  }
  const code = await exited
  // 1: nothing matched. 2: some file could not be read — rg still searched the others.
  if (code === 2 && stderr.trim() !== '') perFile.warn(dirs.join(', '), stderr.trim().split('\n')[0]!)
  else if (code !== 0 && code !== 1 && code !== 2)
    throw new Error(`ripgrep exited with ${code}: ${stderr.trim()}`)
}

/** The fallback: every log read as a stream, lines prefiltered before any JSON parsing. */
async function streamLines(dirs: string[], needles: string[], perFile: FileDocuments): Promise<void> {
  const lowered = needles.map((needle) => needle.toLowerCase())
  for (const file of await logFiles(dirs)) {
    const input = createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 })
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })
    try {
      for await (const line of lines) {
        if (line.includes(TURN_START_MARK)) perFile.line(file, line)
        else if (mayMatch(line, lowered)) perFile.line(file, line)
      }
    } catch (error) {
      perFile.warn(file, errorMessage(error))
    }
  }
}

function mayMatch(line: string, needles: string[]): boolean {
  const lower = line.toLowerCase()
  return needles.some((needle) => lower.includes(needle))
}

/** The turn of event `seq` in the log `file`: read up to it, parsing only `turn/start` lines. */
export async function turnInLog(file: string, seq: number): Promise<number> {
  let turn = 0
  const input = createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 })
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })
  try {
    for await (const line of lines) {
      const at = SEQ_PATTERN.exec(line)
      if (at === null) continue
      if (Number(at[1]) > seq) break
      if (!line.includes(TURN_START_MARK)) continue
      const number = (JSON.parse(line) as { data?: { turn?: unknown } }).data?.turn
      if (typeof number === 'number') turn = number
    }
  } finally {
    lines.close()
    input.destroy()
  }
  return turn
}

/** The logs in `dirs`: a bucket folder's files, or every bucket's when a dir is the root. */
async function logFiles(dirs: string[]): Promise<string[]> {
  const files: string[] = []
  for (const dir of dirs) {
    const names = await readdir(dir, { withFileTypes: true })
    if (names.some((entry) => entry.isDirectory())) {
      files.push(...(await logFiles(await bucketDirs(dir))))
      continue
    }
    for (const entry of names) if (entry.name.endsWith(LOG_SUFFIX)) files.push(dir + sep + entry.name)
  }
  return files
}
