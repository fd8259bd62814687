// Display width of terminal text, with a fast path for the common case (printable ASCII
// and SGR colours), which string-width would otherwise segment grapheme by grapheme.

import stringWidth from 'string-width'

// biome-ignore lint/suspicious/noControlCharactersInRegex: SGR sequences start with ESC
const SGR = /\u001b\[[0-9;:]*m/g
const PLAIN_ASCII = /^[\u0020-\u007e]*$/

/** Columns `text` takes on a terminal (SGR colour sequences take none). */
export function displayWidth(text: string): number {
  const visible = text.includes('\u001b') ? text.replace(SGR, '') : text
  return PLAIN_ASCII.test(visible) ? visible.length : stringWidth(text)
}
