// The ripgrep searcher: runs a system `rg` (never a downloaded binary) and reads its JSON.

import { type ChildProcessByStdio, spawn, spawnSync } from 'node:child_process'
import { relative, sep } from 'node:path'
import type { Readable } from 'node:stream'
import { buildChildEnv, DEFAULT_SECRET_FILTER, withoutPtyMasters } from '../../shell/index.js'
import { RgOutputReader } from './grep-rg-output.js'
import { type GrepFileResult, type GrepOutcome, type GrepQuery, globFilter } from './grep-types.js'
import { keptWarnings } from './search-rules.js'

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
  // Paths end with a NUL: a file name holding a newline cannot pass for two files.
  if (query.mode === 'files_with_matches') args.push('--files-with-matches', '--null')
  else if (query.mode === 'count') args.push('--count', '--with-filename', '--null')
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
      stdio: withoutPtyMasters(['ignore', 'pipe', 'pipe']),
      signal: query.signal,
    }) as ChildProcessByStdio<null, Readable, Readable> // stdout and stderr are pipes
    const reader = new RgOutputReader(query)
    let failed: unknown
    let capped = false
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      if (failed !== undefined || capped) return
      try {
        reader.push(chunk)
      } catch (error) {
        // Fail closed: output that cannot be checked against `keep` is not answered at all.
        failed = error
        child.kill()
        return
      }
      // Only kept output counts: what a withheld file holds cannot cut the answer short.
      if (reader.keptBytes > MAX_RG_OUTPUT_BYTES) {
        capped = true
        child.kill()
      }
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8')
    })
    child.on('error', reject)
    child.on('close', (code) => {
      if (failed !== undefined) return reject(failed)
      const problems = keptWarnings(stderr.trim() === '' ? [] : stderr.trim().split('\n'), query.keep)
      // 0: matches, 1: none, 2: an error (possibly with partial results).
      // Judged by what was kept: output about a withheld file must not change the answer.
      if (code === 2 && reader.keptBytes === 0) return reject(new Error(firstLine(problems) || 'rg failed'))
      resolve({ files: filterByGlob(reader.results(), query), warnings: problems.slice(0, 5), engine: 'rg' })
    })
  })
}

function firstLine(lines: readonly string[]): string {
  return lines.slice(0, 3).join(' ')
}

function filterByGlob(files: GrepFileResult[], query: GrepQuery): GrepFileResult[] {
  if (!query.glob || query.targetIsFile) return files
  const accepts = globFilter(query.glob)
  return files.filter((file) => accepts(relative(query.target, file.path).split(sep).join('/')))
}
