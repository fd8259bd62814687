// The ripgrep searcher: runs a system `rg` (never a downloaded binary) and reads its JSON.

import { spawn, spawnSync } from 'node:child_process'
import { relative, sep } from 'node:path'
import { buildChildEnv, DEFAULT_SECRET_FILTER } from '../../shell/index.js'
import {
  type GrepFileResult,
  type GrepLine,
  type GrepOutcome,
  type GrepQuery,
  globFilter,
} from './grep-types.js'

/** Stop reading rg output past this many bytes (the tool shows far less). */
const MAX_RG_OUTPUT_BYTES = 32 * 1024 * 1024

let cachedRg: string | null | undefined

/** The `rg` on PATH, or undefined; looked up once per process. `DSH_NO_RG=1` turns it off. */
export function findRipgrep(): string | undefined {
  if (process.env.DSH_NO_RG === '1') return undefined
  if (cachedRg === undefined) {
    const probe = spawnSync('rg', ['--version'], { encoding: 'utf8' })
    cachedRg = probe.status === 0 ? 'rg' : null
  }
  return cachedRg ?? undefined
}

function rgArguments(query: GrepQuery): string[] {
  const args = ['--no-config', '--hidden', '--no-require-git', '--glob', '!.git', '--color', 'never']
  if (query.ignoreCase) args.push('--ignore-case')
  if (query.multiline) args.push('--multiline', '--multiline-dotall')
  if (query.type) args.push('--type', query.type)
  if (query.mode === 'files_with_matches') args.push('--files-with-matches')
  else if (query.mode === 'count') args.push('--count', '--with-filename')
  else {
    args.push('--json')
    if (query.before > 0) args.push('--before-context', String(query.before))
    if (query.after > 0) args.push('--after-context', String(query.after))
  }
  args.push('--regexp', query.pattern, '--', query.target)
  return args
}

export function searchWithRipgrep(rg: string, query: GrepQuery): Promise<GrepOutcome> {
  return new Promise((resolve, reject) => {
    // rg runs outside any sandbox: it gets what a command gets of dsh's environment, no key.
    const env = buildChildEnv(process.env, {}, {}, DEFAULT_SECRET_FILTER)
    const child = spawn(rg, rgArguments(query), {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: query.signal,
    })
    const chunks: Buffer[] = []
    let size = 0
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_RG_OUTPUT_BYTES) chunks.push(chunk)
      else child.kill()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8')
    })
    child.on('error', reject)
    child.on('close', (code) => {
      const out = Buffer.concat(chunks).toString('utf8')
      // 0: matches, 1: none, 2: an error (possibly with partial results).
      if (code === 2 && out === '') return reject(new Error(firstLine(stderr) || 'rg failed'))
      const warnings = stderr.trim() === '' ? [] : stderr.trim().split('\n').slice(0, 5)
      resolve({ files: filterByGlob(parse(out, query), query), warnings, engine: 'rg' })
    })
  })
}

function firstLine(text: string): string {
  return text.trim().split('\n').slice(0, 3).join(' ')
}

function parse(out: string, query: GrepQuery): GrepFileResult[] {
  const lines = out.split('\n').filter((line) => line !== '')
  if (query.mode === 'files_with_matches') return lines.map((path) => ({ path, count: 0, lines: [] }))
  if (query.mode === 'count') {
    return lines.map((line) => {
      const at = line.lastIndexOf(':')
      return { path: line.slice(0, at), count: Number(line.slice(at + 1)), lines: [] }
    })
  }
  const files: GrepFileResult[] = []
  let current: { path: string; count: number; lines: GrepLine[] } | undefined
  for (const line of lines) {
    const message = JSON.parse(line) as RgMessage
    if (message.type === 'begin') {
      current = { path: rgText(message.data.path), count: 0, lines: [] }
      files.push(current)
    } else if ((message.type === 'match' || message.type === 'context') && current) {
      const text = rgText(message.data.lines).replace(/\r?\n$/, '')
      const first = message.data.line_number ?? 0
      // A multiline match spans several lines: each is shown as a match line.
      for (const [offset, part] of text.split('\n').entries()) {
        current.lines.push({ line: first + offset, text: part, match: message.type === 'match' })
      }
      if (message.type === 'match') current.count += 1
    }
  }
  return files
}

interface RgText {
  text?: string
  bytes?: string
}

type RgMessage =
  | { type: 'begin'; data: { path: RgText } }
  | { type: 'match' | 'context'; data: { path: RgText; lines: RgText; line_number?: number } }
  | { type: 'end' | 'summary'; data: unknown }

function rgText(value: RgText): string {
  return value.text ?? Buffer.from(value.bytes ?? '', 'base64').toString('utf8')
}

function filterByGlob(files: GrepFileResult[], query: GrepQuery): GrepFileResult[] {
  if (!query.glob || query.targetIsFile) return files
  const accepts = globFilter(query.glob)
  return files.filter((file) => accepts(relative(query.target, file.path).split(sep).join('/')))
}
