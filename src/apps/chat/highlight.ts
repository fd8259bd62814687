// Syntax highlighting for code blocks: emphasize (highlight.js grammars → ANSI), loaded
// lazily because its grammars cost ~0.2 s to import. Until it is loaded, code is plain.

type Highlighter = (code: string, language: string) => string

let highlighter: Highlighter | undefined
let loading: Promise<void> | undefined

/** Starts loading the highlighter; resolves when it is ready (never rejects). */
export function loadHighlighter(): Promise<void> {
  loading ??= import('emphasize')
    .then(({ createEmphasize, common }) => {
      const emphasize = createEmphasize(common)
      highlighter = (code, language) => {
        if (language !== '' && emphasize.registered(language))
          return emphasize.highlight(language, code).value
        return code
      }
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
