// The composition root: loads every plugin of a harness from one resolved config.
// The CLI, stdio, ACP, the demo and the integration tests all compose through here.

import { Context } from 'cordis'
import { AgentRegistry } from '../agent/registry.js'
import type { ResolvedConfig } from '../config/load.js'
import { OpenAiCompatibleAdapter } from '../llm/openai/openai-adapter.js'
import { loadPersistenceBackend } from '../persistence/load-backend.js'
import { SessionStore } from '../session/store.js'
import { LocalShellExecutor, SessionPersistenceEnvPlugin, ShellEnvRegistry } from '../shell/index.js'
import { BashToolPlugin } from '../tools/bash/index.js'
import { FsToolsPlugin } from '../tools/fs/index.js'
import { ToolRegistry } from '../tools/registry.js'
import { subagentToolPlugin } from '../tools/subagent/subagent-tool.js'

export interface HarnessOptions {
  config: ResolvedConfig
  /** Model endpoint overrides (the demo and tests point at a loopback server). */
  model?: { baseUrl?: string; apiKey?: string }
}

export interface Harness {
  readonly ctx: Context
  readonly config: ResolvedConfig
  readonly agents: AgentRegistry
  readonly sessions: SessionStore
  /** Unloads every plugin: running turns are cancelled and sessions flushed. */
  dispose(): Promise<void>
}

export async function createHarness(options: HarnessOptions): Promise<Harness> {
  const { config } = options
  // Optional plugins are imported only when configured: start-up pays for what it uses.
  const hooks =
    config.hooks.claudeCode.length > 0 || config.hooks.codex.length > 0
      ? await import('../hooks/index.js')
      : undefined
  const acp =
    config.subagents.acp && config.subagents.enabled
      ? await import('../tools/subagent/acp-backend.js')
      : undefined
  const ctx = new Context()
  const fibers = [
    ctx.plugin(SessionStore),
    await loadPersistenceBackend(ctx, config.persistence),
    ctx.plugin(OpenAiCompatibleAdapter, {
      baseUrl: options.model?.baseUrl ?? config.model.baseUrl,
      apiKey: options.model?.apiKey,
      apiKeyEnv: config.model.apiKeyEnv,
      model: config.model.name,
      effort: config.model.effort,
      ...(config.model.maxTokens !== undefined ? { maxTokens: config.model.maxTokens } : {}),
      maxRetries: config.model.maxRetries,
      ...(config.model.streamIdleTimeoutMs !== undefined
        ? { requestTimeoutMs: config.model.streamIdleTimeoutMs }
        : {}),
    }),
    ctx.plugin(ToolRegistry),
    ctx.plugin(LocalShellExecutor),
    ctx.plugin(ShellEnvRegistry, { home: config.home }),
    ctx.plugin(SessionPersistenceEnvPlugin),
    ctx.plugin(BashToolPlugin),
    ctx.plugin(FsToolsPlugin, { home: config.home }),
    ...(hooks && config.hooks.claudeCode.length > 0
      ? [ctx.plugin(hooks.claudeCodeHooksPlugin, { files: config.hooks.claudeCode })]
      : []),
    ...(hooks && config.hooks.codex.length > 0
      ? [ctx.plugin(hooks.codexHooksPlugin, { files: config.hooks.codex })]
      : []),
    ctx.plugin(subagentToolPlugin, { maxDepth: config.subagents.enabled ? config.subagents.maxDepth : 0 }),
    ...(acp && config.subagents.acp
      ? [
          ctx.plugin(acp.acpSubagentToolPlugin, {
            ...config.subagents.acp,
            maxDepth: config.subagents.maxDepth,
          }),
        ]
      : []),
    ctx.plugin(AgentRegistry, {
      systemPrompt: config.agent.systemPrompt,
      maxStepsPerTurn: config.agent.maxStepsPerTurn,
      model: {
        ...(config.model.name !== undefined ? { model: config.model.name } : {}),
        effort: config.model.effort,
        ...(config.model.temperature !== undefined ? { temperature: config.model.temperature } : {}),
        ...(config.model.maxTokens !== undefined ? { maxTokens: config.model.maxTokens } : {}),
      },
    }),
  ]
  await Promise.all(fibers.map((fiber) => fiber.await()))
  const agents = ctx.get('agents')!
  const sessions = ctx.get('sessions')!
  return {
    ctx,
    config,
    agents,
    sessions,
    async dispose() {
      // Agents first (they flush through the store), then everything else.
      await fibers.at(-1)!.dispose()
      for (const fiber of fibers.slice(0, -1).reverse()) await fiber.dispose()
    },
  }
}
