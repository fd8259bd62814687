// Types of the tool seam: what a tool declares and what every tool body receives.

import type { z } from 'zod'
import type { ToolSchema } from '../llm/types.js'
import type { AgentHandle } from './agent.js'
import type { PreparedImage } from './images.js'

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
  /** True when the agent's model is known to take images: `read` returns an image file as one. */
  takesImages?: boolean
}

export interface ToolOutput {
  content: string
  /** True when the call failed (bad arguments, denied, crashed) rather than produced a result. */
  isError?: boolean
  /** What the call cost in USD (paid web APIs); logged as a `usage/charge` event, so it joins the session's totals. */
  costUsd?: number
  /**
   * Structured facts about the result for hooks and front ends, never sent to the model
   * (bash: `stdout`, `stderr`, `exitCode`, `interrupted`, `timedOut`; read/write/edit/multi_edit:
   * `hookResponse`, their result in Claude Code's `tool_response` shape). A non-zero `exitCode`
   * or `interrupted` makes hooks see the call as failed (PostToolUseFailure).
   */
  details?: Readonly<Record<string, unknown>>
  /**
   * Images for the model (only when the call's `takesImages`): stored in the session's image
   * store, named by the `tool/result` event, and sent after the tool results.
   */
  images?: readonly PreparedImage[]
}

/**
 * How a tool looks to hooks written for another agent: its name there (`Bash`), other names
 * matchers also accept (`Task` for `Agent`), and input fields it renames (dsh field → theirs,
 * e.g. `timeout_ms` → `timeout`). Unlisted fields keep their names.
 */
export interface HookToolShape {
  readonly name: string
  readonly aliases?: readonly string[]
  readonly fields?: Readonly<Record<string, string>>
}

/** A tool's shapes per hook dialect; a tool without one keeps its dsh name and fields. */
export interface ToolHookNames {
  readonly claudeCode?: HookToolShape
  readonly codex?: HookToolShape
}

export interface ToolDefinition<Schema extends z.ZodObject = z.ZodObject> {
  name: string
  /** Model-facing text; keep it in a prompt file next to the tool. */
  description: string
  parameters: Schema
  /**
   * The JSON Schema of `parameters` for the model, when the tool has it made already (a
   * built-in tool's, carried by the bundle: core/tool-parameters.ts). Default: zod makes it.
   */
  parametersJsonSchema?(): Record<string, unknown>
  /** How Claude Code and Codex hooks see this tool (name, field names); see HookToolShape. */
  hookNames?: ToolHookNames
  /**
   * How permission rules see a call when not as this tool with its own input (rules use
   * Claude Code names): `terminal_start` is matched as a `Bash` command, a line sent to a
   * shell as the command it runs. Undefined keeps the default. Throwing denies the call.
   */
  permissionSubject?(input: Readonly<Record<string, unknown>>, agent: AgentHandle): PermissionView | undefined
  execute(args: z.infer<Schema>, execution: ToolExecution): Promise<ToolOutput>
}

/** A call as permission rules see it: a Claude Code tool name and its input. */
export interface PermissionView {
  readonly tool: string
  readonly input: Readonly<Record<string, unknown>>
}

/**
 * A tool whose JSON Schema comes from elsewhere (an MCP server): the provider passes the
 * schema through to the model and validates and runs calls itself.
 */
export interface ProvidedTool {
  readonly schema: ToolSchema
  /** Runs one call with the model's raw JSON arguments; bad arguments become error outputs. */
  run(rawArguments: string | unknown, execution: ToolExecution): Promise<ToolOutput>
}

/**
 * A source of tools that depend on the agent asking (MCP servers scoped to a session or a
 * project). `tools(agent)` must return the same array while nothing changed, so the request
 * prefix stays byte-stable; it is called once per model request and once per call.
 */
export interface ToolProvider {
  readonly name: string
  tools(agent: AgentHandle | undefined): readonly ProvidedTool[]
  /** Why a tool name this provider would own is not offered now (its server is down), if it knows. */
  explain?(name: string, agent: AgentHandle | undefined): string | undefined
}
