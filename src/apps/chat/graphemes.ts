// Grapheme clusters — what a person sees as one character: an emoji (with its skin tone, or a
// ZWJ family), a letter with combining marks, a surrogate pair. The input editor moves and
// deletes by them, so no edit leaves half a character (a lone surrogate) in the prompt.

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/** Where the grapheme cluster ending at `index` starts (0 at the start of `text`). */
export function graphemeStartBefore(text: string, index: number): number {
  if (index <= 0) return 0
  return segmenter.segment(text).containing(index - 1)?.index ?? 0
}

/** Where the grapheme cluster starting at `index` ends (`text.length` at the end). */
export function graphemeEndAfter(text: string, index: number): number {
  if (index >= text.length) return text.length
  const segment = segmenter.segment(text).containing(index)
  return segment === undefined ? text.length : segment.index + segment.segment.length
}

/** The grapheme clusters of `text`, in order (lazily: a caller may stop early). */
export function* graphemesOf(text: string): Generator<string> {
  for (const { segment } of segmenter.segment(text)) yield segment
}

/** `text` without its last grapheme cluster: Backspace in the one-line inputs (search, feedback, picker). */
export function withoutLastGrapheme(text: string): string {
  return text.slice(0, graphemeStartBefore(text, text.length))
}
