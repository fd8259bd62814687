// Shared composition for terminal tests: the shell test context (session store, tool
// registry, `DSH_*` registry, local executor, bash tool) plus the terminal service and tools,
// and the same in the agent loop (the loopback model, permission rules, hooks).

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Context, Fiber } from 'cordis'
import type { AgentHandle } from '../../src/agent/index.js'
import { claudeCodeHooksPlugin } from '../../src/hooks/index.js'
import { OpenAiCompatibleAdapter, type ScriptOutcome } from '../../src/llm/index.js'
import { PermissionPolicy } from '../../src/permissions/index.js'
import type { LocalShellExecutorConfig } from '../../src/shell/index.js'
import { SpillStore } from '../../src/spill/index.js'
import { TerminalService, type TerminalServiceConfig } from '../../src/terminal/index.js'
import type { ToolOutput } from '../../src/tools/index.js'
import { TerminalToolsPlugin } from '../../src/tools/terminal/index.js'
import { type ShellTestContext, startShellTestContext } from '../shell/support.js'
import type { LoopbackModel } from '../support/loopback-model.js'

export interface TerminalTestContext extends ShellTestContext {
  /** Runs a terminal tool as `agent` and returns its text (throws on an error result unless `allowError`). */
  call(agent: AgentHandle | undefined, name: string, args: unknown, allowError?: boolean): Promise<string>
  output(agent: AgentHandle | undefined, name: string, args: unknown): Promise<ToolOutput>
}

export async function startTerminalTestContext(options: {
  home: string
  executor?: LocalShellExecutorConfig
  terminals?: TerminalServiceConfig
  settleMs?: number
  plugins?: ((ctx: Context) => Fiber)[]
}): Promise<TerminalTestContext> {
  const test = await startShellTestContext({
    home: options.home,
    backend: 'jsonl',
    ...(options.executor ? { executor: options.executor } : {}),
    plugins: [
      (ctx) => ctx.plugin(SpillStore, { home: options.home }),
      (ctx) => ctx.plugin(TerminalService, { killGraceMs: 500, ...options.terminals }),
      (ctx) => ctx.plugin(TerminalToolsPlugin, { settleMs: options.settleMs ?? 150 }),
      ...(options.plugins ?? []),
    ],
  })
  const output = (agent: AgentHandle | undefined, name: string, args: unknown) =>
    test.runTool(name, args, agent)
  return {
    ...test,
    output,
    async call(agent, name, args, allowError = false) {
      const result = await output(agent, name, args)
      if (result.isError && !allowError) throw new Error(`${name} failed: ${result.content}`)
      return result.content
    },
  }
}

/** The `[screen]` part of a reading. */
export function screenOf(reading: string): string {
  const at = reading.indexOf('\n[screen]\n')
  return at < 0 ? '' : reading.slice(at + '\n[screen]\n'.length)
}

export interface TerminalLoop {
  test: TerminalTestContext
  agent: AgentHandle
  home: string
}

/**
 * The terminal tools in the agent loop: `model` answers (started by the caller), permission
 * rules in `auto` mode with `deny`, and Claude Code `hooks` when given. The caller disposes
 * `test`.
 */
export async function startTerminalLoop(options: {
  model: LoopbackModel
  home: string
  cwd: string
  deny?: string[]
  hooks?: Record<string, unknown>
}): Promise<TerminalLoop> {
  const { model, home } = options
  const hooksFile = join(home, 'hooks.json')
  if (options.hooks) writeFileSync(hooksFile, JSON.stringify({ hooks: options.hooks }))
  const test = await startTerminalTestContext({
    home,
    plugins: [
      (ctx) => ctx.plugin(OpenAiCompatibleAdapter, { baseUrl: model.baseUrl, apiKey: 'k', maxRetries: 0 }),
      ...(options.hooks ? [(ctx: Context) => ctx.plugin(claudeCodeHooksPlugin, { files: [hooksFile] })] : []),
      (ctx) =>
        ctx.plugin(PermissionPolicy, { mode: 'auto', deny: options.deny ?? [], projectTrusted: false }),
    ],
  })
  const agent = await test.createAgent('terminal-loop', options.cwd)
  return { test, agent, home }
}

/** A scripted reply that calls one tool. */
export const toolCall = (name: string, args: Record<string, unknown>): ScriptOutcome => ({
  toolCalls: [{ name, arguments: args }],
})

/** The text of each tool result in the agent's session, in order. */
export function toolResults(agent: AgentHandle): string[] {
  return agent.session.events
    .filter((event) => event.type === 'tool/result')
    .map((event) => (event.data as { content: string }).content)
}
