// Converting an MCP `tools/call` result into the text a tool result carries: text blocks,
// structured content, images and resources each get a readable form.

export interface McpContentBlock {
  type: string
  text?: string
  data?: string
  mimeType?: string
  uri?: string
  name?: string
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string }
}

export interface McpCallResult {
  content?: McpContentBlock[]
  structuredContent?: unknown
  isError?: boolean
}

/**
 * The result as text. Text blocks verbatim; `structuredContent` (as JSON) only when no
 * text block came with it — the MCP spec (2025-06-18, server/tools "Structured Content")
 * has servers also return the serialized JSON as text for older clients, so both would
 * send the model the same data twice, whatever their formatting. Images and audio as a
 * one-line description (the model adapter sends text only); embedded text resources with
 * their URI; links as their URI.
 */
export function resultText(result: McpCallResult): string {
  const content = Array.isArray(result.content) ? result.content : []
  const parts = content.map(blockText)
  const hasText = content.some((block) => block.type === 'text' && (block.text ?? '').trim() !== '')
  if (result.structuredContent !== undefined && !hasText) {
    parts.push(`[structured content]\n${JSON.stringify(result.structuredContent, null, 2)}`)
  }
  return parts.length > 0 ? parts.join('\n') : '(no content)'
}

function blockText(block: McpContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text ?? ''
    case 'image':
    case 'audio': {
      // Node counts the `=` padding out: 96 characters ending in `==` are 70 bytes, not 72.
      const bytes = block.data ? Buffer.byteLength(block.data, 'base64') : 0
      return `[${block.type}: ${block.mimeType ?? 'unknown type'}, ${bytes} bytes]`
    }
    case 'resource': {
      const resource = block.resource
      if (!resource) return '[resource]'
      if (resource.text !== undefined) return `[resource ${resource.uri}]\n${resource.text}`
      return `[resource ${resource.uri}: ${resource.mimeType ?? 'binary'}, ${resource.blob?.length ?? 0} base64 characters]`
    }
    case 'resource_link':
      return `[resource link ${block.uri ?? ''}${block.name ? ` (${block.name})` : ''}]`
    default:
      return `[${block.type} content]`
  }
}
