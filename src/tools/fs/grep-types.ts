// What a grep search is asked and what it finds, shared by the ripgrep and JavaScript searchers.

import picomatch from 'picomatch'

export interface GrepQuery {
  /** The regular expression, in ripgrep's syntax (the JavaScript fallback takes the common subset). */
  readonly pattern: string
  /** Absolute file or folder. */
  readonly target: string
  readonly targetIsFile: boolean
  readonly glob?: string
  readonly type?: string
  readonly ignoreCase: boolean
  readonly multiline: boolean
  readonly mode: 'content' | 'files_with_matches' | 'count'
  readonly before: number
  readonly after: number
  readonly signal: AbortSignal
  /**
   * Files whose lines, counts and names may reach the model (the sandbox's hidden paths and
   * the permission rules decide); the others are never read by the JavaScript searcher, and
   * rg's output about them is dropped before it is kept or counted against any cap. Absent:
   * every file. Throwing rejects the search.
   */
  readonly keep?: (path: string) => boolean
}

export interface GrepLine {
  readonly line: number
  readonly text: string
  readonly match: boolean
}

export interface GrepFileResult {
  /** Absolute path. */
  readonly path: string
  /** Matching lines (content and count modes). */
  readonly count: number
  /** Matches and context lines in order (content mode only). */
  readonly lines: GrepLine[]
}

export interface GrepOutcome {
  readonly files: GrepFileResult[]
  /** Problems that did not stop the search (unreadable files). */
  readonly warnings: string[]
  /** Which searcher ran. */
  readonly engine: 'rg' | 'js'
}

/** File types `type` accepts in the JavaScript searcher (ripgrep knows many more). */
export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ['c', 'h'],
  cpp: ['cpp', 'cc', 'cxx', 'hpp', 'hh', 'hxx', 'h'],
  css: ['css', 'scss', 'sass', 'less'],
  go: ['go'],
  html: ['html', 'htm'],
  java: ['java'],
  js: ['js', 'jsx', 'mjs', 'cjs', 'vue'],
  json: ['json', 'jsonl'],
  kotlin: ['kt', 'kts'],
  md: ['md', 'markdown', 'mdx'],
  php: ['php'],
  py: ['py', 'pyi'],
  rb: ['rb'],
  ruby: ['rb'],
  rust: ['rs'],
  sh: ['sh', 'bash', 'zsh'],
  sql: ['sql'],
  swift: ['swift'],
  toml: ['toml'],
  ts: ['ts', 'tsx', 'mts', 'cts'],
  yaml: ['yaml', 'yml'],
}

/**
 * The `glob` filter over paths relative to the search folder. A glob without a slash matches
 * the file name at any depth, as ripgrep's does. Applied after the .gitignore walk (ripgrep's
 * own `--glob` would re-include ignored files).
 */
export function globFilter(glob: string): (relative: string) => boolean {
  return picomatch(glob, { dot: true, basename: !glob.includes('/') })
}
