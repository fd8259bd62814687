// The chat renderer's shortcuts against the libraries they stand in for: the narrow-width
// fast path against string-width, skipping wrap-ansi for lines that fit, and code blocks
// highlighted line by line with highlight.js state carried from one line to the next.

import hljs from 'highlight.js/lib/common'
import stringWidth from 'string-width'
import { beforeAll, expect, it } from 'vitest'
import wrapAnsi from 'wrap-ansi'
import { SCOPE_COLORS } from '../../../src/apps/chat/ansi-emitter.js'
import { highlightCodeLine, loadHighlighter } from '../../../src/apps/chat/highlight.js'
import { MarkdownStream } from '../../../src/apps/chat/markdown.js'
import { displayWidth, narrowWidth } from '../../../src/apps/chat/width.js'
import { colorsFor } from '../../../src/apps/shared/render.js'
import { fc } from '../../support/property.js'

const colors = colorsFor({ isTTY: true } as NodeJS.WriteStream, {})

beforeAll(async () => {
  await loadHighlighter()
})

/** Characters from inside and around the fast path's set, and SGR sequences between them. */
const piece = fc.oneof(
  fc.constantFrom(
    'a',
    'Z',
    '0',
    ' ',
    ' ',
    '~',
    '*',
    '│',
    '─',
    '•',
    '—',
    '“',
    '…',
    '→',
    '≤',
    'é',
    'Ł',
    '⠋',
    '✓',
  ),
  fc.constantFrom('\u00ad', 'e\u0301', '日', '🎉', '✅', '⌚', '\u200b', '\u25fd', '\ufe0f', '\t'),
  fc.constantFrom('\u001b[1m', '\u001b[22m', '\u001b[35m', '\u001b[39m', '\u001b[2m'),
)
const text = fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join(''))

it('counts every character of the narrow set as one column, as string-width does', () => {
  let counted = 0
  for (let code = 0x20; code < 0x3000; code++) {
    const char = String.fromCodePoint(code)
    if (narrowWidth(char) === undefined) continue
    counted++
    expect(stringWidth(char), `U+${code.toString(16)}`).toBe(1)
    // wrap-ansi normalizes to NFC; a line of these is already normal.
    expect(char.normalize(), `U+${code.toString(16)}`).toBe(char)
  }
  expect(counted).toBeGreaterThan(1000)
  expect(narrowWidth('\u00ad')).toBeUndefined()
  expect(narrowWidth('e\u0301')).toBeUndefined()
  expect(narrowWidth('✅')).toBeUndefined()
})

it('measures any text as string-width does', () => {
  fc.assert(
    fc.property(text, (sample) => {
      expect(displayWidth(sample)).toBe(stringWidth(sample))
    }),
    { numRuns: 2000 },
  )
})

it('leaves a narrow line that fits as wrap-ansi would (so the renderer need not call it)', () => {
  fc.assert(
    fc.property(text, fc.integer({ min: 10, max: 60 }), (sample, room) => {
      const width = narrowWidth(sample)
      fc.pre(width !== undefined && width <= room)
      expect(wrapAnsi(sample, room, { hard: true, trim: false })).toBe(sample)
    }),
    { numRuns: 2000 },
  )
})

/** Code whose constructs span lines: a doc comment, a template string, a docstring, a parameter list, a script element. */
const MULTI_LINE: [string, string][] = [
  ['ts', '/**\n * Waits for a while of time: if it is done, return.\n */\nconst done = true'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source with a template string
  ['js', 'const page = `<p>\nfor ${user.name} in\n</p>`\nlet after = 1'],
  ['python', 'def f():\n    """Return the thing.\n    import this, if not None\n    """\n    return 1'],
  ['ts', 'constructor(\n  private readonly width: number,\n  public name: string,\n) {}'],
  ['html', '<script>\nlet x = 1 // one\nif (x) return\n</script>\n<p>done</p>'],
]

/** Streams one fenced block through the markdown renderer, `chunk` characters at a time. */
function streamedBlock(language: string, code: string, chunk: number): string[] {
  const stream = new MarkdownStream(colors, () => 200)
  const text = `\`\`\`${language}\n${code}\n\`\`\`\n`
  const out: string[] = []
  for (let at = 0; at < text.length; at += chunk) {
    out.push(...stream.push(text.slice(at, at + chunk)))
    stream.preview() // must not disturb the block's state
  }
  out.push(...stream.finish())
  return out.slice(1).map((line) => line.slice(2)) // without the language label and the indent
}

/** What a terminal shows for a line: each character with the foreground colour it is drawn in. */
function painted(line: string): string[] {
  const cells: string[] = []
  let color = 39
  // biome-ignore lint/suspicious/noControlCharactersInRegex: SGR sequences start with ESC
  for (const [, sgr, char] of line.matchAll(/\u001b\[(\d+)m|(.)/gsu)) {
    if (sgr !== undefined) color = Number(sgr)
    else cells.push(`${color}:${char}`)
  }
  return cells
}

/** The same, per line, for highlight.js's own HTML of a whole block (an independent reading). */
function paintedHtml(html: string): string[][] {
  const lines: string[][] = [[]]
  const colors: number[] = []
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'" }
  for (const [, open, close, text] of html.matchAll(/<span class="([^"]*)">|(<\/span>)|([^<]+)/g)) {
    if (open !== undefined) {
      const name = /hljs-([\w-]+)/.exec(open)?.[1] ?? ''
      colors.push(SCOPE_COLORS.get(name) ?? colors.at(-1) ?? 39)
    } else if (close !== undefined) colors.pop()
    else {
      for (const char of text!.replace(/&(amp|lt|gt|quot|#x27);/g, (_, name: string) => entities[name]!)) {
        if (char === '\n') lines.push([])
        else lines.at(-1)!.push(`${colors.at(-1) ?? 39}:${char}`)
      }
    }
  }
  return lines
}

it('highlights a code block line by line exactly as highlight.js colours the whole block', () => {
  for (const [language, code] of MULTI_LINE) {
    const whole = paintedHtml(hljs.highlight(code, { language, ignoreIllegals: true }).value)
    expect(whole.flat().some((cell) => !cell.startsWith('39:'))).toBe(true)
    for (const chunk of [1, 5, 1000]) {
      expect(streamedBlock(language, code, chunk).map(painted), `${language} in ${chunk}s`).toEqual(whole)
    }
  }
})

it('colours a line as the HTML of highlight.js does, embedded languages included', () => {
  const samples: [string, string][] = [
    [
      'html',
      '<script>let x = "a" + 1 /* c */</script><style>a { color: red; }</style><p class="x">t &amp; u</p>',
    ],
    ['css', 'a > b::before { content: "x"; color: #fff !important }'],
    ['sql', "SELECT a, 'b' FROM t WHERE x = 1 -- c"],
    ['yaml', 'key: "value" # c'],
    ['bash', 'echo "$HOME" | grep -v foo && ls -la # list'],
    ['python', 'def f(x): return f"{x!r}" if x else None  # c'],
    ['rust', 'fn main() { println!("hi {}", 1u8); }'],
    ['go', 'func main() { fmt.Println("hi", 1.5e3) }'],
    ['json', '{"a": [1, 2, true, null], "b": "x"}'],
    ['diff', '@@ -1,2 +1,2 @@'],
    ['php', '<?php echo "hi $name"; ?> <b>x</b>'],
    ['markdown', '# Title with **bold** and `code`'],
  ]
  for (const [language, code] of samples) {
    const html = hljs.highlight(code, { language, ignoreIllegals: true }).value
    expect(painted(highlightCodeLine(code, language).text), language).toEqual(paintedHtml(html)[0])
  }
})

it('colours a line inside a block comment as comment, where a line on its own would not be', () => {
  const first = highlightCodeLine('/* a comment', 'ts')
  expect(first.carried).toEqual(['/* a comment'])
  const inside = highlightCodeLine('   of it, if any */', 'ts', first.carried)
  // Grey (90) from the first column; `of` and `if` are not keywords (magenta, 35) here.
  expect(inside.text).toBe('\u001b[90m   of it, if any */\u001b[39m')
  expect(inside.carried).toEqual([])
  expect(highlightCodeLine('   of it, if any */', 'ts').text).toContain('\u001b[35mof')
})

it('stops carrying a construct that stays open past its limit, and leaves other code as it was', () => {
  let carried = highlightCodeLine('/*', 'ts').carried
  for (let line = 0; line < 200 && carried.length > 0; line++) {
    carried = highlightCodeLine(`comment line ${line} with words of prose in it`, 'ts', carried).carried
  }
  expect(carried).toEqual([]) // dropped after ~4,000 characters, not carried for ever
  expect(highlightCodeLine('let x = 1', 'nosuchlanguage')).toEqual({ text: 'let x = 1', carried: [] })
  expect(highlightCodeLine('const a = "<&>" // one', 'TS').text).toBe(
    '\u001b[35mconst\u001b[39m a = \u001b[32m"<&>"\u001b[39m \u001b[90m// one\u001b[39m',
  )
})
