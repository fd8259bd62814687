// What a slash command may do to the chat: read the session it runs in, print above the
// input, switch the agent, run a prompt or a compaction, leave. Commands get this narrow
// face, not the whole TerminalChat, so chat-commands.ts and chat.ts do not import each other.

import { expandTabs, toTerminalText } from '../../core/terminal-text.js'
import type { Harness } from '../../harness/compose.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import type { Colors } from '../shared/render.js'
import type { AgentPlan } from '../shared/start.js'
import type { PickerSource } from './picker-types.js'
import type { SessionTokens } from './status-line.js'

export interface ChatHost {
  readonly colors: Colors
  /** The live agent. */
  readonly agent: AgentHandle
  readonly harness: Harness
  readonly plan: AgentPlan
  readonly sessionTokens: SessionTokens
  /** The terminal's width, for text the chat wraps itself. */
  readonly columns: number
  /** Prints finished lines above the input. */
  say(text: string): void
  /** Redraws the status line soon. */
  refresh(): void
  /** Replaces the live agent (resume, fork, clear). */
  setAgent(agent: AgentHandle): void
  /** Runs a prompt as a turn now (/init, custom commands). */
  runPrompt(text: string): Promise<void>
  /** Compacts the context now (/compact). */
  compact(instructions: string): Promise<void>
  /** Leaves the chat. */
  exit(code?: number): void
  /** The questions drawn in place of the input (the resume picker opens there). */
  readonly questions: { pickSession(source: PickerSource): Promise<string | undefined> }
}

/** Model and tool text as the terminal may show it: escape sequences shown escaped, tabs expanded. */
export function safe(text: string): string {
  return toTerminalText(expandTabs(text), { keepTabs: false })
}
