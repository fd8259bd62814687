// The slash commands `dsh acp` advertises (ACP "Slash Commands",
// https://agentclientprotocol.com/protocol/slash-commands, read 2026-12-04): the client
// sends a command as the text of an ordinary prompt, `/name rest of the input`.

import type { AvailableCommand, SessionUpdate } from '@agentclientprotocol/sdk'

export const AVAILABLE_COMMANDS: readonly AvailableCommand[] = [
  {
    name: 'compact',
    description: 'Summarise the conversation so far to free the context window',
    input: { hint: 'what the summary should focus on (optional)' },
  },
]

/** The `available_commands_update` sent after a session is created or loaded. */
export function availableCommandsUpdate(): SessionUpdate {
  return { sessionUpdate: 'available_commands_update', availableCommands: [...AVAILABLE_COMMANDS] }
}

/** `/compact focus on the tests` → `{ instructions: 'focus on the tests' }`; undefined for any other text. */
export function parseCompactCommand(text: string): { instructions: string } | undefined {
  const match = /^\s*\/compact(?:\s+([\s\S]*))?$/.exec(text)
  return match ? { instructions: (match[1] ?? '').trim() } : undefined
}
