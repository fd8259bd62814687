// rg's output read record by record, however the chunks fall: every line is credited to the
// file its own message names, and records of files not kept never count.

import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { searchWithRipgrep } from '../../../src/tools/fs/grep-rg.js'
import { RgOutputReader } from '../../../src/tools/fs/grep-rg-output.js'
import type { GrepQuery } from '../../../src/tools/fs/grep-types.js'
import { useTempDirs } from '../../support/temp-dir.js'

const tempDir = useTempDirs('dsh-fake-rg-')

/** Feeds `output` one byte at a time (the worst split), then answers what was kept. */
function read(mode: GrepQuery['mode'], output: Buffer, keep?: (path: string) => boolean) {
  const reader = new RgOutputReader({ mode, ...(keep ? { keep } : {}) })
  for (const byte of output) reader.push(Buffer.from([byte]))
  return { files: reader.results(), keptBytes: reader.keptBytes }
}

const json = (...messages: unknown[]) => Buffer.from(messages.map((m) => `${JSON.stringify(m)}\n`).join(''))
const begin = (path: string) => ({ type: 'begin', data: { path: { text: path } } })
const match = (path: string, line: number, text: string) => ({
  type: 'match',
  data: { path: { text: path }, lines: { text: `${text}\n` }, line_number: line },
})

describe('RgOutputReader', () => {
  it('reads content messages split anywhere, multibyte text included, and drops files not kept', () => {
    const output = json(
      begin('/p/a.txt'),
      match('/p/a.txt', 1, 'héllo wörld'),
      begin('/p/.env'),
      match('/p/.env', 1, 'KEY=secret'),
      // A message naming another file than the last `begin` is credited to its own file.
      match('/p/.env', 2, 'MORE=secret'),
      { type: 'summary', data: {} },
    )
    const all = read('content', output)
    const kept = read('content', output, (path) => path !== '/p/.env')
    expect(all.files.map((file) => file.path)).toEqual(['/p/a.txt', '/p/.env'])
    expect(kept.files).toEqual([
      { path: '/p/a.txt', count: 1, lines: [{ line: 1, text: 'héllo wörld', match: true }] },
    ])
    expect(kept.keptBytes).toBeLessThan(all.keptBytes)
    expect(JSON.stringify(kept.files)).not.toContain('secret')
  })

  it('reads NUL-ended paths (files) and path, NUL, count (count), a newline inside a name included', () => {
    const files = read('files_with_matches', Buffer.from('/p/a.txt\0/p/we\nird.txt\0/p/b.txt\0'))
    expect(files.files.map((file) => file.path)).toEqual(['/p/a.txt', '/p/we\nird.txt', '/p/b.txt'])
    const counts = read(
      'count',
      Buffer.from('/p/we\nird.txt\u00002\n/p/a.txt\u00001\n'),
      (p) => p !== '/p/we\nird.txt',
    )
    expect(counts.files).toEqual([{ path: '/p/a.txt', count: 1, lines: [] }])
  })

  it('drops an unfinished last record (rg stopped mid-line) and fails on output it cannot read', () => {
    expect(read('files_with_matches', Buffer.from('/p/a.txt\0/p/cut')).files.map((f) => f.path)).toEqual([
      '/p/a.txt',
    ])
    expect(() => read('content', Buffer.from('not json\n'))).toThrow()
    expect(() =>
      read('content', json(begin('/p/a.txt')), () => {
        throw new Error('rules unreadable')
      }),
    ).toThrow('rules unreadable')
  })
})

describe('searchWithRipgrep when rg fails on some file', () => {
  // As root (CI) no file is unreadable, so a stand-in plays rg: it prints the withheld file
  // when the pattern matches its content, warns about an unreadable file, and exits 2 as rg does.
  function fakeRg(): string {
    const dir = tempDir()
    const rg = join(dir, 'rg')
    writeFileSync(
      rg,
      [
        '#!/bin/sh',
        'case "$*" in *sk-q*) printf "/p/.env\\0" ;; esac',
        'echo "rg: /p/locked: Permission denied (os error 13)" >&2',
        'exit 2',
      ].join('\n'),
    )
    chmodSync(rg, 0o755)
    return rg
  }

  it('answers the same whatever a withheld file holds (files and count modes)', async () => {
    const rg = fakeRg()
    const keep = (path: string) => path !== '/p/.env'
    for (const mode of ['files_with_matches', 'count'] as const) {
      const outcome = async (pattern: string) =>
        searchWithRipgrep(rg, {
          pattern,
          target: '/p',
          targetIsFile: false,
          ignoreCase: false,
          multiline: false,
          mode,
          before: 0,
          after: 0,
          signal: new AbortController().signal,
          keep,
        }).then(
          (result) => ({ resolved: result.files.length, warnings: result.warnings }),
          (error: Error) => ({ rejected: error.message }),
        )
      const matching = await outcome('API_KEY=sk-q')
      const missing = await outcome('API_KEY=sk-p')
      expect(matching, mode).toEqual(missing)
      expect(missing).toEqual({ rejected: 'rg: /p/locked: Permission denied (os error 13)' })
    }
  })
})
