// A server's prompts and resources through the SDK client: every page of a listing, a
// prompt's messages as text, a resource's contents as text (binary described, not dumped).

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { McpPromptInfo } from './connection-types.js'
import { resultText } from './results.js'

export interface McpResourceInfo {
  uri: string
  name: string
  mimeType?: string
  description?: string
}

/** `prompts/list`, every page. */
export async function allPrompts(client: Client): Promise<McpPromptInfo[]> {
  const prompts: McpPromptInfo[] = []
  let cursor: string | undefined
  do {
    const page = await client.listPrompts(cursor !== undefined ? { cursor } : undefined)
    for (const prompt of page.prompts) {
      prompts.push({
        name: prompt.name,
        ...(prompt.description !== undefined ? { description: prompt.description } : {}),
        ...(prompt.arguments ? { arguments: prompt.arguments } : {}),
      })
    }
    cursor = page.nextCursor
  } while (cursor)
  return prompts
}

/** `prompts/get` as the text of its messages. */
export async function promptText(
  client: Client,
  prompt: string,
  args: Record<string, string>,
): Promise<string> {
  const result = await client.getPrompt({ name: prompt, arguments: args })
  return result.messages
    .map((message) =>
      message.content.type === 'text'
        ? message.content.text
        : resultText({ content: [message.content as { type: string }] }),
    )
    .join('\n\n')
}

/** `resources/list`, every page. */
export async function allResources(client: Client): Promise<McpResourceInfo[]> {
  const resources: McpResourceInfo[] = []
  let cursor: string | undefined
  do {
    const page = await client.listResources(cursor !== undefined ? { cursor } : undefined)
    for (const resource of page.resources) {
      resources.push({
        uri: resource.uri,
        name: resource.name,
        ...(resource.mimeType !== undefined ? { mimeType: resource.mimeType } : {}),
        ...(resource.description !== undefined ? { description: resource.description } : {}),
      })
    }
    cursor = page.nextCursor
  } while (cursor)
  return resources
}

/** `resources/read` as text. */
export async function resourceText(client: Client, uri: string): Promise<string> {
  const result = await client.readResource({ uri })
  return resultText({
    content: result.contents.map((resource) => ({ type: 'resource', resource }) as never),
  })
}
