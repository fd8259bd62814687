// Types of the tool seam: what a tool declares and what every tool body receives.

import type { z } from 'zod'
import type { AgentHandle } from '../agent/types.js'

declare const callIdBrand: unique symbol
/** The model's id for one tool call; crosses the model, the log and hooks. */
export type CallId = string & { readonly [callIdBrand]?: never }

/** The context of one tool call. Calls without an agent (tests, commands) get no session facts. */
export interface ToolExecution {
  agent?: AgentHandle
  callId: CallId
  /** Aborts when the turn is cancelled; tool bodies must stop their work. */
  signal: AbortSignal
  /** The tool's name as the model called it. */
  toolName?: string
}

export interface ToolOutput {
  content: string
  /** True when the call failed (bad arguments, denied, crashed) rather than produced a result. */
  isError?: boolean
  /** What the call cost in USD (paid web APIs); logged on `tool/result` and added to the session's totals. */
  costUsd?: number
}

export interface ToolDefinition<Schema extends z.ZodObject = z.ZodObject> {
  name: string
  /** Model-facing text; keep it in a prompt file next to the tool. */
  description: string
  parameters: Schema
  execute(args: z.infer<Schema>, execution: ToolExecution): Promise<ToolOutput>
}
