// Display width of terminal text, with a fast path for the common case (printable ASCII,
// the narrow symbols the chat draws and prose uses, and SGR colours), which string-width
// would otherwise segment grapheme by grapheme.

import stringWidth from 'string-width'

// biome-ignore lint/suspicious/noControlCharactersInRegex: SGR sequences start with ESC
const SGR = /\u001b\[[0-9;:]*m/g
/**
 * Characters that each take one column on their own and never join a neighbour from this
 * set into one grapheme (no combining marks, joiners or variation selectors), so a string
 * of them is as wide as it is long: printable ASCII, Latin-1 and Latin Extended-A (not the
 * soft hyphen, which takes none), dashes, quotes, bullets and ellipsis, arrows and maths,
 * box drawing, blocks and geometric shapes (not U+25FD/U+25FE, which are emoji), ⎿ ✓ ✗ ⟳
 * and braille (the spinner). test/apps/chat/render.test.ts checks every one against
 * string-width.
 */
const NARROW =
  /^[\u0020-\u007e\u00a0-\u00ac\u00ae-\u017f\u2010-\u2027\u2030-\u205e\u2190-\u22ff\u23bf\u2500-\u25fc\u2713\u2717\u27c0-\u27ff\u2800-\u28ff]*$/

/** Columns `text` takes when every character in it is one narrow column, else undefined. */
export function narrowWidth(text: string): number | undefined {
  const visible = text.includes('\u001b') ? text.replace(SGR, '') : text
  return NARROW.test(visible) ? visible.length : undefined
}

/** Columns `text` takes on a terminal (SGR colour sequences take none). */
export function displayWidth(text: string): number {
  return narrowWidth(text) ?? stringWidth(text)
}
