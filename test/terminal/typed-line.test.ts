// The line follower behind terminal_send's permission view: which keys run a line at a shell
// (checked against bash's default bindings in terminal-permission.test.ts) and which leave
// its text unknown.

import { describe, expect, it } from 'vitest'
import {
  continuesLine,
  EMPTY_LINE,
  expandsHistory,
  keyBytes,
  typedElsewhere,
  typeInto,
} from '../../src/terminal/index.js'

const keys = (...names: string[]) => names.map(keyBytes).join('')

describe('typeInto', () => {
  it('counts every key that runs a line as entering it', () => {
    expect(typeInto(EMPTY_LINE, 'touch a\r').entered).toEqual([{ kind: 'known', text: 'touch a' }])
    expect(typeInto(EMPTY_LINE, `touch a${keys('Ctrl-J')}`).entered).toEqual([
      { kind: 'known', text: 'touch a' },
    ])
    // Ctrl-O runs the line, then puts a history line in the editor: the next one is unknown.
    const ctrlO = typeInto(EMPTY_LINE, `touch a${keys('Ctrl-O')}\r`)
    expect(ctrlO.entered[0]).toEqual({ kind: 'known', text: 'touch a' })
    expect(ctrlO.entered[1]!.kind).toBe('unknown')
    // Esc # runs the line commented out; Esc Ctrl-E runs its command substitutions.
    expect(typeInto(EMPTY_LINE, `touch a${keys('Esc')}#`).entered).toEqual([
      { kind: 'known', text: '#touch a' },
    ])
    expect(typeInto(EMPTY_LINE, `echo $(touch a)${keys('Esc', 'Ctrl-E')}`).entered).toEqual([
      { kind: 'known', text: 'echo $(touch a)' },
    ])
    // Ctrl-X Ctrl-E runs whatever the editor leaves.
    expect(typeInto(EMPTY_LINE, `touch a${keys('Ctrl-X', 'Ctrl-E')}`).entered[0]!.kind).toBe('unknown')
    // Tab on a line with a substitution (zsh expands it).
    expect(typeInto(EMPTY_LINE, 'ls $(touch a)\t').entered).toEqual([
      { kind: 'known', text: 'ls $(touch a)' },
    ])
  })

  it('follows a prefix key into the next input', () => {
    const escaped = typeInto(EMPTY_LINE, `touch a${keys('Esc')}`)
    expect(escaped.entered).toEqual([])
    expect(typeInto(escaped.state, '#').entered).toEqual([{ kind: 'known', text: '#touch a' }])
  })

  it('leaves a line unknown after keys it does not follow, telling this input from earlier ones', () => {
    const left = typeInto(EMPTY_LINE, `touch a${keys('Left')}`)
    expect(left.state.line).toBeUndefined()
    // A cursor key's sequence is not typed text.
    expect(left.state.guess).toBe('touch a')
    expect(typeInto(EMPTY_LINE, `touch a${keys('Left', 'Enter')}`).entered[0]!.kind).toBe('unknown')
    expect(typeInto(left.state, 'b\r').entered).toEqual([
      { kind: 'earlier', typed: 'b', guesses: ['touch ab', 'b'] },
    ])
    // Ctrl-U clears only a known line: after a cursor move it may keep what follows the cursor.
    expect(typeInto(left.state, `${keys('Ctrl-U')}\r`).entered[0]!.kind).toBe('unknown')
    expect(typeInto(left.state, `${keys('Ctrl-C')}ls\r`).entered).toEqual([{ kind: 'known', text: 'ls' }])
  })

  it('makes a line unknown when another program may have read part of it', () => {
    expect(typedElsewhere(EMPTY_LINE, 'q').line).toBeUndefined()
    expect(typedElsewhere(EMPTY_LINE, ':wq\r')).toEqual(EMPTY_LINE)
  })
})

describe('lines the shell reads as one, and lines it rewrites', () => {
  it('follows a backslash continuation and an open quote into the next line, also across inputs', () => {
    expect(typeInto(EMPTY_LINE, 'tou\\\nch x\r').entered).toEqual([{ kind: 'known', text: 'touch x' }])
    const first = typeInto(EMPTY_LINE, 'tou\\\r')
    expect(first.entered).toEqual([])
    expect(typeInto(first.state, 'ch x\r').entered).toEqual([{ kind: 'known', text: 'touch x' }])
    expect(typeInto(EMPTY_LINE, 'echo "a\r$(touch x)"\r').entered).toEqual([
      { kind: 'known', text: 'echo "a\n$(touch x)"' },
    ])
    // An escaped backslash, or one in single quotes, ends nothing.
    expect(continuesLine('echo \\\\')).toBeUndefined()
    expect(continuesLine("echo 'a\\'")).toBeUndefined()
    expect(continuesLine("echo 'open")).toBe('quote')
  })

  it('knows when bash or zsh would expand history in a line', () => {
    for (const line of ['!!', '!:1-2', 'sudo !!', 'echo "!touch"', '!$'])
      expect(expandsHistory(line), line).toBe(true)
    for (const line of ['echo hi!', 'echo ! x', "echo '!!'", 'echo \\!!', '[ ! -f x ]', 'a!=b'])
      expect(expandsHistory(line), line).toBe(false)
  })
})
