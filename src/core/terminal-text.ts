// The one sanitizer for text that reaches a terminal from the model, tools or files.
// Printable text passes; every control or escape sequence (OSC title/clipboard writes,
// DCS, cursor movement, C1 controls, bidi overrides) is shown escaped, never executed.
// Identifiers get a stricter form (toTerminalId): nothing invisible passes either.

/** Options for {@link toTerminalText}. */
export interface TerminalTextOptions {
  /** Keep SGR colour sequences (`ESC [ … m`), as tools such as `ls --color` print them. Default false. */
  readonly keepColors?: boolean
  /** Keep tab characters (default true); when false a tab is shown as `\t`. */
  readonly keepTabs?: boolean
}

// One alternation, tried at each ESC/C1: SGR, any other CSI, OSC (ended by BEL or ST),
// DCS/SOS/PM/APC strings (ended by ST), then any other two-byte escape.
const SEQUENCE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /\u001b\[[0-9;:]*m|\u001b\[[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/y

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const SGR = /^\u001b\[[0-9;:]*m$/

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

/**
 * What an identifier may not show raw: controls, format characters (bidi marks and
 * overrides, zero-width space/joiners, word joiner, BOM, tag characters), every other
 * default-ignorable code point (variation selectors, fillers), separators and spaces but
 * the ASCII one, and lone surrogates. Two ids that print alike are then alike.
 */
function idUnsafe(): RegExp {
  // Built on first use: its Unicode classes cost about 0.5 ms, and most ids are plain ASCII.
  idUnsafePattern ??= /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\p{Cs}]|(?! )\p{Zs}/u
  return idUnsafePattern
}
let idUnsafePattern: RegExp | undefined

/** Printable ASCII, the space included: nothing of it is unsafe in an id (a session id, say). */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/

/** Shows one character as a visible escape (`\e`, `\r`, `\x07`, `\u202e`, `\u{e0041}`). */
function escapeChar(char: string): string {
  const code = char.codePointAt(0) as number
  if (code === 0x1b) return '\\e'
  if (code === 0x0d) return '\\r'
  if (code === 0x09) return '\\t'
  if (code === 0x0a) return '\\n'
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`
  if (code > 0xffff) return `\\u{${code.toString(16)}}`
  return `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * An identifier (a session id, a parent id) as a terminal or page may show it: every
 * character that is invisible, reorders text or moves the cursor is escaped (`\u202e`,
 * `\u200b`, `\ufeff`, `\e`, `\n`), everything else shown as it is. Unlike
 * toTerminalText it keeps nothing invisible: text may need a zero-width joiner, an id never does.
 */
export function toTerminalId(id: string): string {
  if (PRINTABLE_ASCII.test(id)) return id
  const unsafe = idUnsafe()
  if (!unsafe.test(id)) return id
  let out = ''
  for (const char of id) out += unsafe.test(char) ? escapeChar(char) : char
  return out
}

function escapeAll(text: string): string {
  let out = ''
  for (const char of text) out += UNSAFE.test(char) || char === '\t' ? escapeChar(char) : char
  return out
}

/**
 * Returns `text` safe to write to a terminal: newlines and printable characters as they
 * are (`\r\n` becomes `\n`), SGR colours kept only with `keepColors`, everything else
 * that a terminal would interpret shown escaped (`\e]52;c;…` instead of a clipboard write).
 */
export function toTerminalText(text: string, options: TerminalTextOptions = {}): string {
  const keepTabs = options.keepTabs ?? true
  // Fast path: nothing a terminal would interpret.
  if (!UNSAFE.test(text) && (keepTabs || !text.includes('\t'))) return text
  let out = ''
  let index = 0
  while (index < text.length) {
    const char = text[index] as string
    if (char === '\u001b') {
      SEQUENCE.lastIndex = index
      const match = SEQUENCE.exec(text)
      const sequence = match ? match[0] : char
      const isSgr = SGR.test(sequence)
      out += isSgr && options.keepColors ? sequence : escapeAll(sequence)
      index += sequence.length
      continue
    }
    if (char === '\r' && text[index + 1] === '\n') {
      index += 1
      continue
    }
    if (char === '\n' || (char === '\t' && keepTabs)) out += char
    else if (char === '\t' || UNSAFE.test(char)) out += escapeChar(char)
    else out += char
    index += 1
  }
  return out
}

/**
 * Tabs as spaces to the next multiple of `width` columns, per line: a preview shows
 * `1  import x` (as `cat` on a terminal would), not a literal `\t`, and widths stay countable.
 */
export function expandTabs(text: string, width = 8): string {
  if (!text.includes('\t')) return text
  return text
    .split('\n')
    .map((line) => {
      let out = ''
      for (const char of line) out += char === '\t' ? ' '.repeat(width - (out.length % width)) : char
      return out
    })
    .join('\n')
}
