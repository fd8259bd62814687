// The composition root: loads every plugin of a harness from one resolved config.
// The CLI, stdio, ACP, the demo and the integration tests all compose through here.

import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { Context } from 'cordis'
import { AgentRegistry } from '../agent/registry.js'
import { readApiKeyFile } from '../config/api-key-file.js'
import type { ResolvedConfig } from '../config/load.js'
import { ContextService } from '../context/index.js'
import { modelTitlePlugin, modelWritesTitles } from '../history/index.js'
import { claudeCodeHooksPlugin, codexHooksPlugin, HOOK_FILE_LOCATIONS } from '../hooks/index.js'
import { InstructionsPlugin } from '../instructions/index.js'
import { DEFAULT_MAX_TOKENS, resolveOpenAiConfig } from '../llm/openai/config.js'
import { OpenAiCompatibleAdapter } from '../llm/openai/openai-adapter.js'
import { lspPlugin } from '../lsp/index.js'
import { mcpPlugin } from '../mcp/plugin.js'
import {
  exitPlanModeToolPlugin,
  PermissionPolicy,
  type PermissionPolicyConfig,
  PermittedToolRegistry,
} from '../permissions/index.js'
import { loadPersistenceBackend } from '../persistence/load-backend.js'
import { SessionStore } from '../session/store.js'
import {
  assertSandboxAvailable,
  createSecretFilter,
  LocalShellExecutor,
  SessionPersistenceEnvPlugin,
  type SessionStoreFiles,
  ShellEnvRegistry,
} from '../shell/index.js'
import { SkillsPlugin } from '../skills/index.js'
import { SpillStore } from '../spill/index.js'
import { TerminalService } from '../terminal/index.js'
import { BashToolPlugin } from '../tools/bash/index.js'
import { FsToolsPlugin } from '../tools/fs/index.js'
import { subagentToolPlugin } from '../tools/subagent/subagent-tool.js'
import { TerminalToolsPlugin } from '../tools/terminal/index.js'
import { selectWebProviders } from '../tools/web/select.js'
import { WebToolsPlugin } from '../tools/web/web-tools.js'
import { type ProjectTrustConfig, ProjectTrustService } from '../trust/index.js'

export interface HarnessOptions {
  config: ResolvedConfig
  /** Model endpoint overrides (the demo and tests point at a loopback server). */
  model?: { baseUrl?: string; apiKey?: string }
  /** The front end's permission settings: flags (`--permission-mode`, `--allowed-tools`, ...), whether it can ask. */
  permissions?: Pick<
    PermissionPolicyConfig,
    'mode' | 'allowedTools' | 'disallowedTools' | 'canAsk' | 'frontEnd' | 'projectTrusted'
  >
  /**
   * How project folders are trusted to bring their own hooks, MCP servers, rules and skills:
   * `headless` (`dsh run`, `dsh stdio`) loads only what was trusted with its current content,
   * `interactive` asks with `ask` (chat, web); `disabled` is `--no-project-config`, `granted`
   * `--trust-project` (config `trustProjects` grants too). Default: interactive without a
   * way to ask, so nothing a project brings loads unless its folder was trusted before.
   * One decision per folder and process, shared by hooks and MCP (`ctx.projectTrust`).
   */
  trust?: Omit<ProjectTrustConfig, 'home'>
  /** MCP for this run: which servers (`dsh run --mcp`), and whether the first request waits for them. */
  mcp?: { only?: readonly string[]; background?: boolean }
}

export interface Harness {
  readonly ctx: Context
  readonly config: ResolvedConfig
  readonly agents: AgentRegistry
  readonly sessions: SessionStore
  /** Unloads every plugin: running turns are cancelled and sessions flushed. */
  dispose(): Promise<void>
}

/** The files of the configured session store, which a sandbox hides (none for PostgreSQL or memory). */
function sessionStoreFiles(persistence: ResolvedConfig['persistence']): SessionStoreFiles {
  if (persistence.backend === 'jsonl') return { root: persistence.root }
  if (persistence.backend === 'sqlite') return { file: persistence.file }
  return {}
}

export async function createHarness(options: HarnessOptions): Promise<Harness> {
  const { config } = options
  const ctx = new Context()
  const endpoint = resolveOpenAiConfig({
    baseUrl: options.model?.baseUrl ?? config.model.baseUrl,
    apiKey: options.model?.apiKey,
    apiKeyEnv: config.model.apiKeyEnv,
    noKey: config.model.apiKey === 'none',
  })
  const web = selectWebProviders(config.web, {
    baseUrl: endpoint.endpoint.replace(/\/chat\/completions$/, ''),
    apiKey: () => endpoint.apiKey ?? (process.env[endpoint.apiKeyEnv]?.trim() || undefined),
    apiKeyEnv: endpoint.apiKeyEnv,
  })
  // Fail closed at start: a sandbox asked for and unavailable is one clear error, not a silent fallback.
  if (config.sandbox !== 'off') assertSandboxAvailable(config.sandboxBwrapPath)
  const interactive = (options.trust?.frontEnd ?? 'interactive') === 'interactive'
  const projectFiles = config.hooks.projectFiles && options.trust?.disabled !== true
  const home = homedir()
  const fibers = [
    ctx.plugin(SessionStore),
    await loadPersistenceBackend(ctx, config.persistence),
    ctx.plugin(OpenAiCompatibleAdapter, {
      baseUrl: options.model?.baseUrl ?? config.model.baseUrl,
      apiKey: options.model?.apiKey ?? (config.model.apiKeyFile && readApiKeyFile(config.model.apiKeyFile)),
      apiKeyEnv: config.model.apiKeyEnv,
      noKey: config.model.apiKey === 'none',
      model: config.model.name,
      effort: config.model.effort,
      ...(config.model.maxTokens !== undefined ? { maxTokens: config.model.maxTokens } : {}),
      maxRetries: config.model.maxRetries,
      ...(config.model.streamIdleTimeoutMs !== undefined
        ? { requestTimeoutMs: config.model.streamIdleTimeoutMs }
        : {}),
      ...(config.model.streamMaxDurationMs !== undefined
        ? { streamMaxDurationMs: config.model.streamMaxDurationMs }
        : {}),
      ...(config.model.streamMaxBytes !== undefined ? { streamMaxBytes: config.model.streamMaxBytes } : {}),
    }),
    ctx.plugin(ContextService, {
      auto: config.compaction.auto,
      threshold: config.compaction.threshold,
      defaultMaxTokens: config.model.maxTokens ?? DEFAULT_MAX_TOKENS,
      ...(config.model.contextWindow !== undefined ? { contextWindow: config.model.contextWindow } : {}),
    }),
    // The registry offers each agent the tools its bare deny rules leave (`Bash` hides bash).
    ctx.plugin(PermittedToolRegistry),
    ctx.plugin(LocalShellExecutor, {
      secrets: config.secrets,
      home: config.home,
      sandbox: {
        mode: config.sandbox,
        network: config.sandboxNetwork,
        home: config.home,
        store: sessionStoreFiles(config.persistence),
        bwrapPath: config.sandboxBwrapPath,
      },
    }),
    ctx.plugin(SpillStore, { home: config.home }),
    ctx.plugin(ShellEnvRegistry, { home: config.home }),
    ctx.plugin(SessionPersistenceEnvPlugin),
    ctx.plugin(BashToolPlugin),
    ...(config.terminals.enabled
      ? [
          ctx.plugin(TerminalService, {
            maxPerSession: config.terminals.maxPerSession,
            scrollbackLines: config.terminals.scrollbackLines,
          }),
          ctx.plugin(TerminalToolsPlugin),
        ]
      : []),
    ctx.plugin(WebToolsPlugin, web),
    ctx.plugin(FsToolsPlugin, { home: config.home }),
    ctx.plugin(InstructionsPlugin, { home: config.home }),
    ctx.plugin(SkillsPlugin, { home: config.home, includeUserClaude: config.skills.includeUserClaude }),
    ctx.plugin(ProjectTrustService, {
      home: config.home,
      ...options.trust,
      ...(config.trustProjects ? { granted: true } : {}),
    }),
    ctx.plugin(claudeCodeHooksPlugin, {
      files: [
        ...(config.hooks.claudeCodeUserSettings ? [join(home, HOOK_FILE_LOCATIONS['claude-code'].user)] : []),
        ...config.hooks.claudeCode,
      ],
      projectFiles,
      interactive,
    }),
    ctx.plugin(codexHooksPlugin, {
      files: [
        ...(config.hooks.codexUserHooks ? [join(home, HOOK_FILE_LOCATIONS.codex.user)] : []),
        ...config.hooks.codex,
      ],
      projectFiles,
      interactive,
    }),
    // After the hook bridges: PreToolUse hooks run before the permission check.
    ctx.plugin(PermissionPolicy, {
      mode: config.permissions.mode,
      allow: config.permissions.allow,
      ask: config.permissions.ask,
      deny: config.permissions.deny,
      additionalDirectories: config.permissions.additionalDirectories,
      ...(config.source !== undefined ? { baseDir: dirname(config.source) } : {}),
      home: config.home,
      ...options.permissions,
      // A flag's mode wins over the one a resumed or forked session restores.
      ...(options.permissions?.mode !== undefined ? { forcedMode: options.permissions.mode } : {}),
    }),
    ctx.plugin(exitPlanModeToolPlugin),
    // `subagents.enabled: false` offers the model no sub-agent tool at all. The ACP backend
    // (and the ACP SDK's schemas, a large share of a cold start) loads only when configured.
    ...(config.subagents.enabled
      ? [ctx.plugin(subagentToolPlugin, { maxDepth: config.subagents.maxDepth })]
      : []),
    ...(config.subagents.acp && config.subagents.enabled
      ? [
          ctx.plugin((await import('../tools/subagent/acp-backend.js')).acpSubagentToolPlugin, {
            ...config.subagents.acp,
            maxDepth: config.subagents.maxDepth,
          }),
        ]
      : []),
    ctx.plugin(mcpPlugin, {
      servers: config.mcpServers,
      home: config.home,
      secrets: config.secrets,
      ...(config.source !== undefined ? { configFile: config.source } : {}),
      ...options.mcp,
    }),
    // Code intelligence: the plugin is light; servers and the LSP libraries load on first use.
    ...(config.lsp !== false
      ? [
          ctx.plugin(lspPlugin, {
            settings: config.lsp,
            home: config.home,
            secrets: createSecretFilter(config.secrets),
            ...(config.sandbox !== 'off'
              ? {
                  sandbox: {
                    bwrapPath: config.sandboxBwrapPath,
                    home: config.home,
                    store: sessionStoreFiles(config.persistence),
                  },
                }
              : {}),
          }),
        ]
      : []),
    // Before the agents: their disposal waits for a title call still under way.
    ...(modelWritesTitles(config.titles, endpoint.endpoint) ? [ctx.plugin(modelTitlePlugin)] : []),
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
