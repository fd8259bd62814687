// Flattens an ACP prompt (content blocks) into the one user message a dsh turn takes.

import type { ContentBlock } from '@agentclientprotocol/sdk'
import { DshError } from '../../core/errors.js'
import { AcpErrorCode } from './errors.js'

/**
 * Text blocks verbatim; a resource link as a markdown link; an embedded text resource as
 * its text inside a `<resource uri="...">` element. Images and audio are not advertised and
 * are refused with ACP_UNSUPPORTED_CONTENT. Blocks are joined with newlines.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  return blocks.map(blockText).join('\n')
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
