// What kind of body a fetch got: its media type and charset parameter, and whether it is
// converted from HTML, passed through as text, or refused.

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase()
}

/** The `charset` parameter of a Content-Type header, if any. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')
  return match?.[1]
}

export type BodyKind = 'html' | 'text' | 'unsupported'

/** How a body of this media type is shown: converted from HTML, as text, or refused. */
export function bodyKind(type: string, firstBytes: Buffer): BodyKind {
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html'
  if (type.startsWith('text/')) return 'text'
  if (/^application\/([\w.-]+\+)?(json|xml|javascript|x-yaml|yaml|toml)$/.test(type)) return 'text'
  if (type === '' || type === 'application/octet-stream') {
    const head = firstBytes.subarray(0, 512).toString('latin1').trimStart().toLowerCase()
    if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'html'
  }
  return 'unsupported'
}
