// Syntax highlighting for code blocks, one line at a time as they stream: highlight.js
// (its common grammars), whose HTML spans are turned into ANSI colours here. Loaded lazily
// because the grammars cost ~0.2 s to import; until then, code is shown plain.

/** SGR colour per highlight.js class (the first class of a span decides). */
const COLORS: Record<string, number> = {
  keyword: 35,
  'selector-tag': 35,
  literal: 35,
  meta: 35,
  string: 32,
  regexp: 32,
  'template-tag': 32,
  number: 33,
  symbol: 33,
  comment: 90,
  quote: 90,
  title: 34,
  section: 34,
  built_in: 36,
  type: 36,
  class: 36,
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#x27;': "'",
}

/**
 * Turns highlight.js HTML (nested `<span class="hljs-…">`) into lines of text with SGR
 * colours. Spans open across a line break are closed at the end of the line and reopened
 * at the start of the next, so each line stands on its own, and reads exactly as the last
 * line of highlighting the text up to it.
 */
export function htmlToAnsiLines(html: string): string[] {
  const stack: number[] = []
  const lines: string[] = []
  let out = ''
  for (const part of html.split(/(<span class="[^"]*">|<\/span>)/)) {
    if (part.startsWith('<span')) {
      const name = /hljs-([\w-]+)/.exec(part)?.[1] ?? ''
      const color = COLORS[name] ?? stack.at(-1) ?? 39
      stack.push(color)
      out += `\u001b[${color}m`
    } else if (part === '</span>') {
      stack.pop()
      out += `\u001b[${stack.at(-1) ?? 39}m`
    } else {
      const text = part.replace(/&(?:amp|lt|gt|quot|#x27);/g, (entity) => ENTITIES[entity]!)
      const breaks = text.split('\n')
      out += breaks[0]
      for (const rest of breaks.slice(1)) {
        // As if the text ended here (every span closed) and began again inside them.
        for (let depth = stack.length - 1; depth >= 0; depth--) out += `\u001b[${stack[depth - 1] ?? 39}m`
        lines.push(out)
        out = stack.map((color) => `\u001b[${color}m`).join('') + rest
      }
    }
  }
  lines.push(out)
  return lines
}

interface Grammar {
  highlight(code: string, language: string): { html: string; open: boolean }
  knows(language: string): boolean
}

let grammar: Grammar | undefined
let loading: Promise<void> | undefined

/** Starts loading the highlighter; resolves when it is ready (never rejects). */
export function loadHighlighter(): Promise<void> {
  loading ??= import('highlight.js/lib/common')
    .then(({ default: hljs }) => {
      grammar = {
        knows: (language) => hljs.getLanguage(language) !== undefined,
        highlight(code, language) {
          const result = hljs.highlight(code, { language, ignoreIllegals: true })
          // `_top` is the mode the text ends in: the language itself unless a construct
          // (block comment, string, parameter list) is still open.
          return { html: result.value, open: result._top !== hljs.getLanguage(language) }
        },
      }
    })
    .catch(() => {
      // Highlighting is decoration: without it, code is shown plain.
    })
  return loading
}

/**
 * The lines of a code block since a construct that is still open began (a block comment,
 * a template string, a docstring); empty when the last line ended at the top level.
 */
export type CarriedLines = readonly string[]

export interface HighlightedLine {
  text: string
  /** What the block's next line continues; pass it to the next call. */
  carried: CarriedLines
}

/**
 * Past this many characters an open construct is no longer carried: each line of it would
 * re-highlight all of it (highlight.js has no public way to resume from a saved state), so
 * the next line starts afresh, as if at the top level.
 */
const MAX_CARRIED_CHARS = 4_000

/**
 * Highlights the next line of a `language` code block with ANSI colours, or returns it
 * unchanged (no highlighter yet, unknown language). A line that continues an open
 * construct is highlighted together with the lines since it opened, so a comment or a
 * string spanning lines is coloured as one.
 */
export function highlightCodeLine(
  code: string,
  language: string,
  carried: CarriedLines = [],
): HighlightedLine {
  const name = language.toLowerCase()
  if (grammar === undefined || name === '' || !grammar.knows(name)) return { text: code, carried: [] }
  const source = carried.length === 0 ? code : `${carried.join('\n')}\n${code}`
  try {
    const { html, open } = grammar.highlight(source, name)
    const text = htmlToAnsiLines(html).at(-1)!
    const next = open && source.length <= MAX_CARRIED_CHARS ? [...carried, code] : []
    return { text, carried: next }
  } catch {
    // A grammar that throws on a fragment: show the line plain and start afresh.
    return { text: code, carried: [] }
  }
}
