// The bounded buffers behind a terminal: the text kept for `wait_for` (matched incrementally,
// across chunks, forgotten at a read) and the transcript (in memory up to a bound, then
// the whole of it in a file written in batches).

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RecentText } from '../../src/terminal/recent.js'
import { stripControls } from '../../src/terminal/strip.js'
import { Transcript } from '../../src/terminal/transcript.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs()

describe('stripControls', () => {
  it('drops carriage returns from plain text, and control sequences from the rest', () => {
    expect(stripControls('line one\r\nline\ttwo\r\n')).toBe('line one\nline\ttwo\n')
    expect(stripControls('plain')).toBe('plain')
    expect(stripControls('\x1b]0;title\x07\x1b[1;31mred\x1b[0m\r\n\x1b(Bdone\x08!')).toBe('red\ndone!')
  })
})

describe('RecentText', () => {
  it('finds a pattern split across chunks, and each match only once new text came', () => {
    const recent = new RecentText()
    recent.append('Local: ht')
    expect(recent.test(/Local: http:/)).toBe(false)
    recent.append('tp://127.0.0.1:3000\n')
    expect(recent.test(/Local: http:/)).toBe(true)
    // Nothing new: the overlap still holds it (a second waiter sees the same text).
    expect(recent.test(/3000/)).toBe(true)
  })

  it('looks at new text with a bounded overlap, and forgets everything at a read', () => {
    const recent = new RecentText()
    recent.append('MARK\n')
    recent.append('x'.repeat(10_000))
    expect(recent.test(/zzz/)).toBe(false)
    // MARK is now further back than the overlap: a later check does not find it again.
    recent.append('y')
    expect(recent.test(/MARK/)).toBe(false)
    recent.append('MARK \x1b[1magain\x1b[0m\r\n')
    expect(recent.test(/again$/m)).toBe(true)
    recent.clear()
    expect(recent.test(/MARK/)).toBe(false)
    recent.append('after the read: MARK')
    expect(recent.test(/MARK/)).toBe(true)
  })

  it('keeps only the newest text however much arrives, in however small chunks', () => {
    const recent = new RecentText()
    recent.append('START\n')
    for (let i = 0; i < 100_000; i++) recent.append('ab')
    recent.append('END')
    expect(recent.test(/START/)).toBe(false)
    const fresh = new RecentText()
    fresh.append('x'.repeat(70_000))
    fresh.append('y'.repeat(70_000))
    // Everything since the last read is matched at the first check, up to the bound.
    expect(fresh.test(/^y+$/)).toBe(true)
  })
})

describe('Transcript', () => {
  it('stays in memory under its bound, and spills the whole stream once past it', async () => {
    const dir = tempDir()
    const path = join(dir, 'transcript.txt')
    let asked = 0
    const transcript = new Transcript(1_000, () => {
      asked++
      return path
    })
    transcript.push('first line\n')
    expect(existsSync(path)).toBe(false)
    const lines: string[] = []
    for (let i = 0; i < 20_000; i++) lines.push(`line ${i}\n`)
    for (const line of lines) transcript.push(line)
    expect(transcript.spillNow()).toBe(path)
    await transcript.close()
    expect(asked).toBe(1)
    expect(readFileSync(path, 'utf8')).toBe(`first line\n${lines.join('')}`)
    // Closed: more output is not written.
    transcript.push('late\n')
    expect(readFileSync(path, 'utf8').endsWith('line 19999\n')).toBe(true)
  })

  it('writes multi-byte text across its blocks, and text bigger than a block, whole and in order', async () => {
    const path = join(tempDir(), 'wide.txt')
    const transcript = new Transcript(10, () => path)
    const parts: string[] = []
    for (let i = 0; i < 3_000; i++) parts.push(`é😀 line ${i} ${'ü'.repeat(i % 97)}\n`)
    parts.push('€'.repeat(200_000), '\n', 'x'.repeat(300_000), '\nend\n')
    for (const part of parts) transcript.push(part)
    await transcript.close()
    expect(readFileSync(path, 'utf8')).toBe(parts.join(''))
  })

  it('keeps plain text without its carriage returns and leaves control sequences out', async () => {
    const path = join(tempDir(), 'plain.txt')
    const transcript = new Transcript(20, () => path)
    transcript.push('before\r\n')
    transcript.push('\x1b[1;31mred\x1b[0m\r\n')
    for (let i = 0; i < 5_000; i++) transcript.push(`row ${i}\r\n`)
    transcript.push('\r\nlast\r')
    await transcript.close()
    const rows = Array.from({ length: 5_000 }, (_, i) => `row ${i}\n`).join('')
    expect(readFileSync(path, 'utf8')).toBe(`before\nred\n${rows}\nlast`)
  })

  it('stops its file at a cap, saying so there, and counts what it dropped', async () => {
    const path = join(tempDir(), 'capped.txt')
    const transcript = new Transcript(10, () => path, 1_000)
    for (let i = 0; i < 300; i++) transcript.push('0123456789')
    await transcript.close()
    expect(readFileSync(path, 'utf8')).toBe(
      `${'0123456789'.repeat(100)}\n[dsh: the transcript stops here, at its cap of 1,000 characters; later output reached only the screen]\n[dsh: 2,000 more characters were dropped]\n`,
    )
  })

  it('spills on request before its bound, and answers no path when no file can be made', async () => {
    const dir = tempDir()
    const path = join(dir, 'early.txt')
    const early = new Transcript(100_000, () => path)
    early.push('héllo ')
    expect(early.spillNow()).toBe(path)
    early.push('wörld\n')
    await early.close()
    expect(readFileSync(path, 'utf8')).toBe('héllo wörld\n')

    const broken = new Transcript(10, () => join(dir, 'missing', 'folder', 'file.txt'))
    broken.push('more than ten characters')
    expect(broken.spillNow()).toBeUndefined()
    await broken.close()
  })
})
