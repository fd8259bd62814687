// The HTML vocabulary and text helpers of the HTML-to-Markdown converter
// (html-to-markdown.ts): which elements are dropped or are blocks, whitespace, link targets.

/** Elements whose whole content is dropped. */
export const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'select',
  'button',
  'dialog',
])

/** Elements that start and end a paragraph-like block. */
export const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'nav',
  'aside',
  'figure',
  'figcaption',
  'form',
  'fieldset',
  'address',
  'details',
  'summary',
  'dl',
  'dt',
  'dd',
  'table',
  'caption',
  'body',
])

/** A link target kept as written, without parsing. */
export const ABSOLUTE_HTTP = /^https?:\/\/[^\s()<>]+$/i

/** Runs of HTML whitespace that are not already a single space. */
const WHITESPACE_RUN = /[\t\n\r\f][ \t\n\r\f]*| [ \t\n\r\f]+/g

export function collapse(text: string): string {
  return text.replace(WHITESPACE_RUN, ' ')
}

export function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13 || code === 12
}

export function safeUrl(href: string, base?: URL): URL | undefined {
  try {
    return new URL(href, base)
  } catch {
    // An unparsable link target: the link text stays, the target is dropped.
    return undefined
  }
}
