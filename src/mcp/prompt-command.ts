// MCP prompts as chat slash commands: `/mcp__<server>__<prompt> arg1 arg2` fetches the
// prompt (arguments in the prompt's declared order) and its text becomes the user's message.

import type { AgentHandle } from '../plugin-api/index.js'
import type { McpManager } from './manager.js'
import { mcpToolName } from './naming.js'

export interface PromptCommand {
  /** The slash command without `/`: `mcp__server__prompt`. */
  name: string
  server: string
  prompt: string
  description?: string
  argumentNames: string[]
}

/** Every prompt of the connected servers an agent sees (servers without prompts are never asked). */
export async function promptCommands(manager: McpManager, agent: AgentHandle): Promise<PromptCommand[]> {
  const commands: PromptCommand[] = []
  for (const connection of await manager.visible(agent)) {
    if (connection.state !== 'connected') continue
    for (const prompt of connection.prompts) {
      commands.push({
        name: mcpToolName(connection.name, prompt.name),
        server: connection.name,
        prompt: prompt.name,
        ...(prompt.description !== undefined ? { description: prompt.description } : {}),
        argumentNames: (prompt.arguments ?? []).map((argument) => argument.name),
      })
    }
  }
  return commands
}

/**
 * The text of `/mcp__server__prompt args...`, or undefined when the line names no such
 * prompt. Missing required arguments are the server's to refuse (its error is thrown).
 */
export async function expandPromptCommand(
  manager: McpManager,
  agent: AgentHandle,
  line: string,
): Promise<string | undefined> {
  const [head, ...words] = line.trim().slice(1).split(/\s+/)
  const command = (await promptCommands(manager, agent)).find((candidate) => candidate.name === head)
  if (!command) return undefined
  const args: Record<string, string> = {}
  command.argumentNames.forEach((name, index) => {
    const last = index === command.argumentNames.length - 1
    const value = last ? words.slice(index).join(' ') : words[index]
    if (value !== undefined && value !== '') args[name] = value
  })
  const connection = await manager.find(agent, command.server)
  if (!connection) return undefined
  return connection.getPrompt(command.prompt, args)
}
