// A session's stored image in the transcript: fetched with the bearer header and shown from a
// blob: URL, so no URL on the page carries the access token (a link opened in a new tab
// would put it in history). Images are named by their hash, so each is fetched once a page.

import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { ImageRef } from '../../../llm/types.js'
import { api } from './api.js'

/** Object URLs kept at most; the oldest is revoked past this (it is fetched again if shown again). */
const KEPT = 200
const objectUrls = new Map<string, Promise<string>>()

function objectUrl(sessionId: string, sha256: string): Promise<string> {
  const key = `${sessionId}/${sha256}`
  let url = objectUrls.get(key)
  if (url === undefined) {
    url = api.image(sessionId, sha256).then((blob) => URL.createObjectURL(blob))
    // A failed fetch is not kept: the next render tries again.
    url.catch(() => objectUrls.delete(key))
    objectUrls.set(key, url)
    if (objectUrls.size > KEPT) {
      const [oldest, old] = objectUrls.entries().next().value as [string, Promise<string>]
      objectUrls.delete(oldest)
      old.then((revoked) => URL.revokeObjectURL(revoked)).catch(() => {})
    }
  }
  return url
}

/** A thumbnail linking to the full image; until it arrives (or if it cannot), its label. */
export function StoredImage(props: { sessionId: string; image: ImageRef }): VNode {
  const { sessionId, image } = props
  const [url, setUrl] = useState<string | undefined>(undefined)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    let live = true
    objectUrl(sessionId, image.sha256).then(
      (loaded) => live && setUrl(loaded),
      () => live && setFailed(true),
    )
    return () => {
      live = false
    }
  }, [sessionId, image.sha256])
  const label = `${image.name} ${image.width}×${image.height}`
  if (url === undefined)
    return html`<span class="prompt-image pending" title=${label}>${failed ? `${label} (not available)` : label}</span>`
  return html`<a class="prompt-image" href=${url} target="_blank" rel="noopener" title=${label}><img class="thumb" src=${url} alt=${label} /></a>`
}
