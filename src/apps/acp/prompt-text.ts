// Flattens an ACP prompt (content blocks) into the one user message a dsh turn takes.

import type { ContentBlock } from '@agentclientprotocol/sdk'
import type { ClientImage } from '../../attachments/index.js'
import { DshError } from '../../core/errors.js'
import { AcpErrorCode } from './errors.js'

/**
 * Text blocks verbatim; a resource link as a markdown link; an embedded text resource as
 * its text inside a `<resource uri="...">` element. Image blocks are left out here (see
 * `promptImages`); audio is not advertised and is refused with ACP_UNSUPPORTED_CONTENT.
 * Blocks are joined with newlines.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  return blocks
    .filter((block) => block.type !== 'image')
    .map(blockText)
    .join('\n')
}

/** The prompt's `image` blocks (advertised with `promptCapabilities.image`), as base64 images. */
export function promptImages(blocks: readonly ContentBlock[]): ClientImage[] {
  const images: ClientImage[] = []
  for (const block of blocks) {
    if (block.type !== 'image') continue
    const name = block.uri ? block.uri.split(/[/\\]/).pop() : undefined
    images.push({ data: block.data, ...(name ? { name } : {}) })
  }
  return images
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text
    case 'resource_link':
      return `[${block.title ?? block.name}](${block.uri})`
    case 'resource': {
      const { resource } = block
      if ('text' in resource) return `<resource uri="${resource.uri}">\n${resource.text}\n</resource>`
      return `[binary resource ${resource.uri} omitted]`
    }
    default:
      throw new DshError(
        `${block.type} content is not supported; send text or resources`,
        AcpErrorCode.UnsupportedContent,
      )
  }
}
