// Images in a Claude Code export: the Messages API's image content blocks
// (`{type: 'image', source: {type: 'base64', media_type, data}}`), as Claude Code writes them,
// for the images a user message or tool result names. An image missing from the store
// becomes a text block saying so.

import type { ImageRef } from '../../llm/types.js'

type Block = Record<string, unknown>

/** The image blocks for an event's `images` refs (none when it names no image). */
export function imageBlocks(data: unknown, images: ReadonlyMap<string, Buffer> | undefined): Block[] {
  const refs = (data as { images?: ImageRef[] }).images
  if (!refs?.length) return []
  return refs.map((ref) => {
    const bytes = images?.get(ref.sha256)
    return bytes
      ? {
          type: 'image',
          source: { type: 'base64', media_type: ref.mediaType, data: bytes.toString('base64') },
        }
      : { type: 'text', text: `[image ${ref.name} is missing from the session's store]` }
  })
}
