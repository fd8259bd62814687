// Syntax highlighting for code blocks, one line at a time as they stream: highlight.js
// (its common grammars) with an emitter that writes SGR colours (ansi-emitter.ts). Loaded
// lazily because the grammars cost ~0.2 s to import; until then, code is shown plain.

import type { Language } from 'highlight.js'
import { AnsiEmitter } from './ansi-emitter.js'

interface Grammar {
  /** The line's colours, and whether a construct is still open at its end. */
  highlight(code: string, language: string): { lastLine: string; open: boolean }
  knows(language: string): boolean
}

let grammar: Grammar | undefined
let loading: Promise<void> | undefined

/** Starts loading the highlighter; resolves when it is ready (never rejects). */
export function loadHighlighter(): Promise<void> {
  loading ??= import('highlight.js/lib/common')
    .then(({ default: shared }) => {
      // An instance of our own with the same grammars: its emitter writes SGR colours, and
      // the shared instance keeps writing HTML for anyone else.
      const hljs = shared.newInstance()
      for (const name of shared.listLanguages())
        hljs.registerLanguage(name, shared.getLanguage(name)!.rawDefinition!)
      hljs.configure({ __emitter: AnsiEmitter })
      const known = new Map<string, Language | undefined>()
      const languageOf = (name: string) => {
        if (!known.has(name)) known.set(name, hljs.getLanguage(name))
        return known.get(name)
      }
      grammar = {
        knows: (language) => languageOf(language) !== undefined,
        highlight(code, language) {
          const result = hljs.highlight(code, { language, ignoreIllegals: true })
          // A grammar that failed part-way leaves HTML-escaped code: show the line plain.
          const failed = result.illegal || result.errorRaised !== undefined
          return {
            lastLine: failed ? code.slice(code.lastIndexOf('\n') + 1) : result.value,
            // `_top` is the mode the text ends in: the language itself unless a construct
            // (block comment, string, parameter list) is still open.
            open: !failed && result._top !== languageOf(language),
          }
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
    const { lastLine: text, open } = grammar.highlight(source, name)
    const next = open && source.length <= MAX_CARRIED_CHARS ? [...carried, code] : []
    return { text, carried: next }
  } catch {
    // A grammar that throws on a fragment: show the line plain and start afresh.
    return { text: code, carried: [] }
  }
}
