// Turns a fetched body into text: the charset comes from the Content-Type header, a BOM or
// an HTML <meta> (the WHATWG sniffing rules, via encoding-sniffer), defaulting to UTF-8.

import { decodeBuffer } from 'encoding-sniffer'
import { charsetOf } from './body-kind.js'

export function decodeBody(body: Buffer, contentType: string | undefined): string {
  const label = charsetOf(contentType)
  return decodeBuffer(body, {
    defaultEncoding: 'utf-8',
    ...(label !== undefined ? { transportLayerEncodingLabel: label } : {}),
  })
}
