// Syntax highlighting for code blocks: highlight.js (its common grammars), whose HTML
// spans are turned into ANSI colours here. Loaded lazily because the grammars cost
// ~0.2 s to import; until then, code is shown plain.

type Highlighter = (code: string, language: string) => string

let highlighter: Highlighter | undefined
let loading: Promise<void> | undefined

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

/** Turns highlight.js HTML (nested `<span class="hljs-…">`) into text with SGR colours. */
export function htmlToAnsi(html: string): string {
  const stack: number[] = []
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
      out += part.replace(/&(?:amp|lt|gt|quot|#x27);/g, (entity) => ENTITIES[entity]!)
    }
  }
  return out
}

/** Starts loading the highlighter; resolves when it is ready (never rejects). */
export function loadHighlighter(): Promise<void> {
  loading ??= import('highlight.js/lib/common')
    .then(({ default: hljs }) => {
      highlighter = (code, language) =>
        hljs.getLanguage(language)
          ? htmlToAnsi(hljs.highlight(code, { language, ignoreIllegals: true }).value)
          : code
    })
    .catch(() => {
      // Highlighting is decoration: without it, code is shown plain.
    })
  return loading
}

/** Highlights one line of `language` code with ANSI colours, or returns it unchanged. */
export function highlightLine(code: string, language: string): string {
  if (highlighter === undefined || language === '') return code
  try {
    return highlighter(code, language.toLowerCase())
  } catch {
    // A grammar that throws on a fragment: show the fragment plain.
    return code
  }
}
