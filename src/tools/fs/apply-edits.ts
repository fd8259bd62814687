// Exact string replacement, the rule of `edit` and `multi_edit`: `old_string` must match
// exactly once (or every occurrence with `replace_all`); a failure says why and shows the
// lines nearest to what was meant.

export interface EditSpec {
  old_string: string
  new_string: string
  replace_all?: boolean | undefined
}

export type EditOutcome = { ok: true; text: string; replacements: number } | { ok: false; message: string }

/** Applies the edits in order to `text` (LF line endings); all or nothing. */
export function applyEdits(text: string, edits: readonly EditSpec[], display: string): EditOutcome {
  let current = text
  let replacements = 0
  for (const [index, edit] of edits.entries()) {
    const label = edits.length > 1 ? `edit ${index + 1} of ${edits.length}: ` : ''
    const outcome = applyOne(current, edit, display)
    if (!outcome.ok) return { ok: false, message: label + outcome.message }
    current = outcome.text
    replacements += outcome.replacements
  }
  return { ok: true, text: current, replacements }
}

function applyOne(text: string, edit: EditSpec, display: string): EditOutcome {
  const oldString = edit.old_string.replaceAll('\r\n', '\n')
  const newString = edit.new_string.replaceAll('\r\n', '\n')
  if (oldString === newString)
    return { ok: false, message: 'old_string and new_string are the same; nothing to change' }
  if (oldString === '') {
    if (text !== '')
      return { ok: false, message: `old_string is empty but ${display} is not; give the text to replace` }
    return { ok: true, text: newString, replacements: 1 }
  }
  const positions = occurrences(text, oldString)
  if (positions.length === 0) return { ok: false, message: noMatchMessage(text, oldString, display) }
  if (positions.length > 1 && !edit.replace_all) {
    const lines = positions.slice(0, 10).map((at) => lineNumberAt(text, at))
    return {
      ok: false,
      message: `old_string matches ${positions.length} times in ${display} (at lines ${lines.join(', ')}${positions.length > 10 ? ', …' : ''}); add surrounding lines to make it unique, or set replace_all to change every occurrence`,
    }
  }
  // split/join, not replace(): `$&` and friends in new_string are literal text.
  return { ok: true, text: text.split(oldString).join(newString), replacements: positions.length }
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = []
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at)
  return found
}

function lineNumberAt(text: string, index: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line += 1
  return line
}

const squash = (line: string) => line.replace(/\s+/g, ' ').trim()

/** Why nothing matched, and where the closest text is. */
function noMatchMessage(text: string, oldString: string, display: string): string {
  const lines = text.split('\n')
  const wanted = oldString.split('\n')
  const parts = [`old_string was not found in ${display}`]
  // Same text apart from whitespace: say so, it is the usual cause.
  const squashed = wanted.map(squash)
  const first = squashed.find((line) => line !== '') ?? ''
  let best = -1
  let bestScore = 0
  for (const [index, line] of lines.entries()) {
    const score = similarity(squash(line), first)
    if (score > bestScore) {
      bestScore = score
      best = index
    }
  }
  if (best >= 0) {
    const window = lines.slice(best, best + wanted.length).map(squash)
    if (window.join('\n') === squashed.join('\n')) {
      parts.push('(it matches when whitespace is ignored: check indentation, tabs and trailing spaces)')
    } else if (/^\s*\d+\t/.test(oldString)) {
      parts.push('(old_string starts with a line number: leave out the `read` line-number prefix)')
    }
    const from = Math.max(0, best - 2)
    const to = Math.min(lines.length, best + Math.max(wanted.length, 1) + 2)
    parts.push(`Nearest lines (${from + 1}-${to}):`)
    for (let i = from; i < to; i++) parts.push(`${String(i + 1).padStart(6)}\t${lines[i]}`)
  } else {
    parts.push('(no line resembles its first line; read the file again to see its current content)')
  }
  return parts.join('\n')
}

/** A cheap similarity in [0, 1]: shared character bigrams (Dice coefficient). */
function similarity(a: string, b: string): number {
  if (a === b) return a === '' ? 0 : 1
  if (a.length < 2 || b.length < 2) return 0
  const grams = new Map<string, number>()
  for (let i = 0; i < a.length - 1; i++) {
    const gram = a.slice(i, i + 2)
    grams.set(gram, (grams.get(gram) ?? 0) + 1)
  }
  let shared = 0
  for (let i = 0; i < b.length - 1; i++) {
    const gram = b.slice(i, i + 2)
    const count = grams.get(gram) ?? 0
    if (count > 0) {
      shared += 1
      grams.set(gram, count - 1)
    }
  }
  return (2 * shared) / (a.length + b.length - 2)
}
