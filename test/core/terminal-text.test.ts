import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toTerminalText } from '../../src/core/index.js'

const ESC = '\u001b'

describe('toTerminalText', () => {
  it('passes printable text, newlines and tabs unchanged', () => {
    expect(toTerminalText('héllo\n\twörld ✓ 日本')).toBe('héllo\n\twörld ✓ 日本')
  })

  it('shows OSC window-title and clipboard writes escaped', () => {
    expect(toTerminalText(`a${ESC}]0;pwned${ESC}\\b`)).toBe('a\\e]0;pwned\\e\\b')
    expect(toTerminalText(`${ESC}]52;c;ZXZpbA==\u0007rest`)).toBe('\\e]52;c;ZXZpbA==\\x07rest')
  })

  it('escapes cursor movement and screen clearing', () => {
    expect(toTerminalText(`x${ESC}[2J${ESC}[10;5Hy`)).toBe('x\\e[2J\\e[10;5Hy')
  })

  it('keeps SGR colours only when asked', () => {
    const colored = `${ESC}[31mred${ESC}[0m`
    expect(toTerminalText(colored)).toBe('\\e[31mred\\e[0m')
    expect(toTerminalText(colored, { keepColors: true })).toBe(colored)
    expect(toTerminalText(`${ESC}[31mred${ESC}[2J`, { keepColors: true })).toBe(`${ESC}[31mred\\e[2J`)
  })

  it('escapes DCS strings, C1 controls, lone carriage returns, BEL and bidi overrides', () => {
    expect(toTerminalText(`${ESC}Pq#0${ESC}\\`)).toBe('\\ePq#0\\e\\')
    expect(toTerminalText('a\u009b2Jb')).toBe('a\\x9b2Jb')
    expect(toTerminalText('50%\r100%')).toBe('50%\\r100%')
    expect(toTerminalText('line\r\nnext')).toBe('line\nnext')
    expect(toTerminalText('ding\u0007')).toBe('ding\\x07')
    expect(toTerminalText('abc\u202edef')).toBe('abc\\u202edef')
  })

  it('never lets an escape, C1 control or lone CR through (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const out = toTerminalText(text)
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the property is about control characters
        expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
      }),
      { numRuns: 2000 },
    )
  })
})
