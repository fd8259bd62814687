// Prompt history per project, kept under the harness home so Up/Down and Ctrl-R
// survive a restart: `$DSH_HOME/history/<project bucket>.jsonl`, one JSON string a line.

import { appendFileSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { bucketFor } from '../../persistence/jsonl/layout.js'

/** Entries kept in memory and read back from the file. */
const MAX_ENTRIES = 1000

export class PromptHistory {
  readonly entries: string[] = []
  readonly file: string

  /** Reads the history of the project folder `cwd` (a missing or torn file is no history). */
  constructor(home: string, cwd: string) {
    this.file = join(home, 'history', `${bucketFor(cwd)}.jsonl`)
    let text = ''
    try {
      text = readFileSync(this.file, 'utf8')
    } catch {
      // No history yet.
    }
    for (const line of text.split('\n')) {
      try {
        const entry: unknown = JSON.parse(line)
        if (typeof entry === 'string' && entry !== '') this.entries.push(entry)
      } catch {
        // A torn or foreign line is skipped, never fatal.
      }
    }
    this.entries.splice(0, Math.max(0, this.entries.length - MAX_ENTRIES))
  }

  /**
   * Adds a submitted prompt (not a repeat of the last one) for Up/Down now; the file gets it
   * only when `persist` is called — once the prompt's UserPromptSubmit hooks let it through, so
   * a prompt a hook blocked (a secret a scanner caught) never reaches the disk.
   */
  add(entry: string): { persist(): void } {
    if (entry.trim() === '' || this.entries.at(-1) === entry) return { persist: () => {} }
    this.entries.push(entry)
    return { persist: () => this.append(entry) }
  }

  private append(entry: string): void {
    try {
      mkdirSync(join(this.file, '..'), { recursive: true, mode: 0o700 })
      appendFileSync(this.file, `${JSON.stringify(entry)}\n`, { mode: 0o600 })
    } catch {
      // History is a convenience: a read-only home must not break the chat.
    }
  }

  /** The newest entry before index `before` that contains `query`, with its index. */
  search(query: string, before = this.entries.length): { index: number; entry: string } | undefined {
    for (let index = Math.min(before, this.entries.length) - 1; index >= 0; index--) {
      const entry = this.entries[index]!
      if (entry.includes(query)) return { index, entry }
    }
    return undefined
  }
}
