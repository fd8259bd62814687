import { describe, expect, it } from 'vitest'
import { toTerminalId, toTerminalText } from '../../src/core/index.js'
import { fc } from '../support/property.js'

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

describe('toTerminalId', () => {
  it('escapes bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E/F, U+061C)', () => {
    expect(toTerminalId('invoice-\u202epdf.exe')).toBe('invoice-\\u202epdf.exe')
    expect(toTerminalId('\u202a\u202b\u202c\u202d')).toBe('\\u202a\\u202b\\u202c\\u202d')
    expect(toTerminalId('\u2066a\u2067b\u2068c\u2069')).toBe('\\u2066a\\u2067b\\u2068c\\u2069')
    expect(toTerminalId('\u200e\u200f\u061c')).toBe('\\u200e\\u200f\\u061c')
  })

  it('escapes zero-width and other invisible characters, and controls', () => {
    expect(toTerminalId('a\u200bb\u200cc\u200dd\u2060e\ufeff')).toBe(
      'a\\u200bb\\u200cc\\u200dd\\u2060e\\ufeff',
    )
    expect(toTerminalId('soft\u00adhyphen\u00a0nbsp\u3000')).toBe('soft\\xadhyphen\\xa0nbsp\\u3000')
    expect(toTerminalId('tag\u{e0041}')).toBe('tag\\u{e0041}')
    expect(toTerminalId('a\nb\u001b[2J\u0007')).toBe('a\\nb\\e[2J\\x07')
  })

  it('passes printable ASCII as it is and escapes every ASCII control, DEL included', () => {
    for (let code = 0; code < 0x80; code++) {
      const char = String.fromCharCode(code)
      const printable = code >= 0x20 && code <= 0x7e
      expect(toTerminalId(`id${char}`) === `id${char}`, `U+${code.toString(16)}`).toBe(printable)
    }
  })

  it('passes printable ids as they are, spaces, emoji and any script included', () => {
    for (const id of ['5f0c6f0e-1b2a', 'my session', 'ファイル-日本', 'emoji-👍', 'path/../x']) {
      expect(toTerminalId(id)).toBe(id)
    }
  })

  it('never lets a format, control or separator character through (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (id) => {
        expect(toTerminalId(id)).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u)
      }),
      { numRuns: 2000 },
    )
  })

  it('toTerminalText escapes U+061C like the other bidi marks', () => {
    expect(toTerminalText('x\u061cy')).toBe('x\\u061cy')
  })
})
