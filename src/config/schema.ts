// The config file schema (`$DSH_HOME/config.yaml` or `--config`). Every default is
// written here, once.
// Each section's schema is built on first use (z.lazy): a config without the section takes
// its default without building it. zod schemas cost start-up time to build (about 8 µs each;
// this file alone built 361 before `dsh run`'s first request, issue #31); a test checks that
// each section's default is what the section's schema gives for `{}`.

import * as z from 'zod'
import { DEFAULT_COMPACTION_THRESHOLD } from '../context/defaults.js'
import { DEFAULT_EFFORT, EFFORTS } from '../llm/deepseek/effort.js'
import { DEFAULT_API_KEY_ENV } from '../llm/openai/config.js'
import { DEFAULT_LSP_SETTINGS, lspSchemas } from '../lsp/config.js'
import { mcpSchemas } from '../mcp/config.js'
import { PERMISSION_MODES } from '../permissions/modes.js'
import { sessionIdProblem } from '../session/id.js'
import { DEFAULT_BWRAP_PATH, SANDBOX_MODES } from '../shell/sandbox/bwrap.js'
import { DEFAULT_MAX_TERMINALS_PER_SESSION, DEFAULT_SCROLLBACK_LINES } from '../terminal/limits.js'
import { WEB_CONFIG_DEFAULTS, webConfigSchema } from '../tools/web/config.js'
export const DEFAULT_MAX_DELEGATION_DEPTH = 2
/** Who titles a session: `model` (a side call), `prompt` (its first prompt), `auto` (src/history/model-title.ts). */
export const TITLE_SOURCES = ['auto', 'model', 'prompt'] as const
export type TitleSource = (typeof TITLE_SOURCES)[number]

const sessionId = () =>
  z.string().superRefine((id, context) => {
    const problem = sessionIdProblem(id)
    if (problem !== undefined) context.addIssue({ code: 'custom', message: `invalid session id: ${problem}` })
  })

const modelConfigSchema = () =>
  z
    .object({
      /** `openai` speaks the OpenAI-compatible Chat Completions protocol (DeepSeek by default). */
      provider: z.enum(['openai']).default('openai'),
      name: z.string().min(1).optional(),
      /** Thinking effort: `off` disables thinking mode. */
      effort: z.enum(EFFORTS).default(DEFAULT_EFFORT),
      /** Default: $DEEPSEEK_BASE_URL, else https://api.deepseek.com */
      baseUrl: z.url().optional(),
      /** The environment variable that holds the API key. */
      apiKeyEnv: z.string().min(1).default(DEFAULT_API_KEY_ENV),
      /**
       * Only `none`: the server needs no key (a local model server), so none is required or
       * sent. Keys themselves never live in the config (apiKeyEnv, apiKeyFile).
       */
      apiKey: z
        .literal('none', { error: () => 'apiKey may only be "none" (put a key in apiKeyEnv or apiKeyFile)' })
        .optional(),
      /** A file holding the API key, read at start (never put in the environment); wins over apiKeyEnv. */
      apiKeyFile: z.string().min(1).optional(),
      temperature: z.number().min(0).max(2).optional(),
      maxTokens: z.number().int().positive().optional(),
      maxRetries: z.number().int().min(0).max(20).optional(),
      /** Stream idle deadline in ms: a request that sends nothing (not even keep-alives) this long fails and is retried. */
      streamIdleTimeoutMs: z.number().int().positive().optional(),
      /** The model's context window in tokens, overriding the model table (other servers, tests). */
      contextWindow: z
        .number({ error: () => 'contextWindow must be a positive whole number of tokens' })
        .int({ error: () => 'contextWindow must be a positive whole number of tokens' })
        .positive({ error: () => 'contextWindow must be a positive whole number of tokens' })
        .optional(),
      /** Longest one model stream may run (default 30 min); past it the request fails, not retried. */
      streamMaxDurationMs: z.number().int().positive().optional(),
      /** Most text (UTF-8 bytes) one model stream may bring (default 64 MiB); past it the request fails, not retried. */
      streamMaxBytes: z.number().int().positive().optional(),
    })
    .strict()

const ratesSchema = () =>
  z.object({ cacheHit: z.number().min(0), cacheMiss: z.number().min(0), output: z.number().min(0) }).strict()

/** Prices per 1M tokens by model; defaults: DeepSeek's pricing page (src/usage/price-table.ts). */
const pricingConfigSchema = () =>
  z
    .object({
      currency: z.string().min(1).optional(),
      models: z
        .record(
          z.string(),
          z.union([ratesSchema(), z.object({ peak: ratesSchema(), offPeak: ratesSchema() }).strict()]),
        )
        .optional(),
      peakHours: z
        .object({
          utcOffsetMinutes: z.number().int(),
          weekdays: z.array(z.number().int().min(0).max(6)),
          ranges: z.array(z.tuple([z.number().min(0).max(24), z.number().min(0).max(24)])),
        })
        .strict()
        .optional(),
    })
    .strict()

const persistenceConfigSchema = () =>
  z
    .object({
      backend: z.enum(['jsonl', 'sqlite', 'postgres', 'memory']).default('jsonl'),
      /** JSONL root. Default: $DSH_HOME/sessions */
      root: z.string().min(1).optional(),
      /** SQLite database file. Default: $DSH_HOME/sessions.db */
      file: z.string().min(1).optional(),
      /** PostgreSQL: a `postgres://` URL. Default: the standard PG* variables (PGHOST, PGPORT, PGUSER, ...). */
      url: z.string().min(1).refine(isPostgresUrl, POSTGRES_URL_PROBLEM).optional(),
      /** PostgreSQL: the schema holding dsh's tables. Default `dsh`. */
      schema: z
        .string()
        .regex(/^[a-z_][a-z0-9_]{0,39}$/, 'must be a lower-case SQL identifier of at most 40 characters')
        .optional(),
      /** PostgreSQL: this machine's name in leases and listings. Default: the OS host name. */
      hostName: z.string().min(1).optional(),
      /** PostgreSQL: how long a writer lease lasts without a heartbeat, ms. Default 30000. */
      leaseMs: z.number().int().min(1000).max(3_600_000).optional(),
      /** PostgreSQL: server-side limit on one statement, ms. Default 30000. */
      statementTimeoutMs: z.number().int().min(100).optional(),
      /** PostgreSQL: how long a checkpoint keeps reconnecting to a lost server, ms. Default 30000. */
      reconnectMs: z.number().int().min(0).optional(),
    })
    .strict()

const hooksConfigSchema = () =>
  z
    .object({
      /** Claude Code settings files (`{ "hooks": {...} }` or a bare event map). */
      claudeCode: z.array(z.string().min(1)).default([]),
      /** Codex hooks.json files. */
      codex: z.array(z.string().min(1)).default([]),
      /** Also read the user's own `~/.claude/settings.json` (off by default). */
      claudeCodeUserSettings: z.boolean().default(false),
      /** Also read the user's own `~/.codex/hooks.json` (off by default). */
      codexUserHooks: z.boolean().default(false),
      /** Read each session's project files (`.claude/settings.json`, `.claude/settings.local.json`, `.codex/hooks.json`) when the project is trusted. */
      projectFiles: z.boolean().default(true),
    })
    .strict()

const agentRowSchema = () =>
  z
    .object({
      /** A stable label; a fresh run mints `${id}-session-${uuid}`. */
      id: z.string().min(1),
      model: z.string().min(1).optional(),
      cwd: z.string().min(1).optional(),
      sessionId: sessionId().optional(),
      resumeSessionId: sessionId().optional(),
    })
    .strict()
    .refine((row) => row.sessionId === undefined || row.resumeSessionId === undefined, {
      message: 'sessionId and resumeSessionId are mutually exclusive',
    })

export const configSchema = z
  .object({
    dshHome: z.string().min(1).optional(),
    model: z.lazy(modelConfigSchema).default({
      provider: 'openai',
      apiKeyEnv: DEFAULT_API_KEY_ENV,
      effort: DEFAULT_EFFORT,
    }),
    persistence: z.lazy(persistenceConfigSchema).default({ backend: 'jsonl' }),
    hooks: z.lazy(hooksConfigSchema).default({
      claudeCode: [],
      codex: [],
      claudeCodeUserSettings: false,
      codexUserHooks: false,
      projectFiles: true,
    }),
    pricing: z.lazy(pricingConfigSchema).default({}),
    agents: z.lazy(() => z.array(agentRowSchema())).default([]),
    agent: z
      .lazy(() =>
        z
          .object({
            systemPrompt: z.string().optional(),
            maxStepsPerTurn: z.number().int().positive().optional(),
          })
          .strict(),
      )
      .default({}),
    /** Context compaction: automatic before the window fills (src/context). */
    compaction: z
      .lazy(() =>
        z
          .object({
            auto: z.boolean().default(true),
            /** The share of the window at which automatic compaction starts. */
            threshold: z
              .number()
              .gt(0, { error: () => 'threshold must be between 0 and 1 (exclusive), e.g. 0.85' })
              .lt(1, { error: () => 'threshold must be between 0 and 1 (exclusive), e.g. 0.85' })
              .default(DEFAULT_COMPACTION_THRESHOLD),
          })
          .strict(),
      )
      .default({ auto: true, threshold: DEFAULT_COMPACTION_THRESHOLD }),
    subagents: z
      .lazy(() =>
        z
          .object({
            enabled: z.boolean().default(true),
            maxDepth: z.number().int().min(0).max(10).default(DEFAULT_MAX_DELEGATION_DEPTH),
            /** An external ACP agent the model may delegate to with the `acp_subagent` tool. */
            acp: z
              .object({
                command: z.string().min(1),
                args: z.array(z.string()).default([]),
                env: z.record(z.string(), z.string()).default({}),
                allowPermissions: z.boolean().default(false),
              })
              .strict()
              .optional(),
          })
          .strict(),
      )
      .default({ enabled: true, maxDepth: DEFAULT_MAX_DELEGATION_DEPTH }),
    /** Persistent terminals the model drives (src/terminal, docs/terminal.md). */
    terminals: z
      .lazy(() =>
        z
          .object({
            enabled: z.boolean().default(true),
            /** Terminals one session may have running at once. */
            maxPerSession: z.number().int().min(1).max(64).default(DEFAULT_MAX_TERMINALS_PER_SESSION),
            /** Lines of scrollback each terminal keeps; older output is in its transcript file. */
            scrollbackLines: z.number().int().min(100).max(100_000).default(DEFAULT_SCROLLBACK_LINES),
          })
          .strict(),
      )
      .default({
        enabled: true,
        maxPerSession: DEFAULT_MAX_TERMINALS_PER_SESSION,
        scrollbackLines: DEFAULT_SCROLLBACK_LINES,
      }),
    web: z.lazy(webConfigSchema).default(WEB_CONFIG_DEFAULTS),
    /** MCP servers (Claude Code's `mcpServers` shape): stdio, `type: http` or `type: sse`. */
    mcpServers: z.lazy(() => mcpSchemas().servers).default({}),
    /** Language servers (docs/lsp.md): `false` turns code intelligence off; `servers` overrides or adds. */
    lsp: z.lazy(() => lspSchemas().config).default(DEFAULT_LSP_SETTINGS),
    /** Environment variables kept from every child (bash, jobs, hooks, MCP servers). */
    secrets: z
      .lazy(() =>
        z
          .object({
            /** More names to scrub (`*` globs, case-insensitive), beyond the built-in credential rule. */
            scrub: z.array(z.string().min(1)).default([]),
            /** Names passed through although they look secret (exact). */
            allow: z.array(z.string().min(1)).default([]),
          })
          .strict(),
      )
      .default({ scrub: [], allow: [] }),
    /** bash commands and jobs in bubblewrap (Linux): off (default), workspace-write, read-only. */
    sandbox: z
      .enum(SANDBOX_MODES, { error: () => `sandbox must be one of ${SANDBOX_MODES.join(', ')}` })
      .default('off'),
    /** Under a sandbox: false gives commands no network at all. Default true. */
    sandboxNetwork: z.boolean().default(true),
    /**
     * Load every project folder's own configuration (MCP servers, hooks, allow rules) without
     * asking, also where nobody can be asked (`dsh run`, `dsh stdio`): `--trust-project` for
     * every run. Default false.
     */
    trustProjects: z.boolean().default(false),
    /**
     * Who titles a new session: `model` (a short side call on the first prompt), `prompt` (the
     * first prompt itself), `auto` (default: the model on DeepSeek's own API, else the prompt).
     */
    titles: z
      .enum(TITLE_SOURCES, { error: () => `titles must be one of ${TITLE_SOURCES.join(', ')}` })
      .default('auto'),
    /** The bubblewrap program a sandbox runs (relative to the config file). Default /usr/bin/bwrap. */
    sandboxBwrapPath: z.string().min(1).default(DEFAULT_BWRAP_PATH),
    /** Commands still running from a dsh that was killed (SIGKILL), found at the next start: report (default) or kill. */
    orphanedCommands: z
      .enum(['report', 'kill'], { error: () => 'orphanedCommands must be report or kill' })
      .default('report'),
    permissions: z
      .lazy(() =>
        z
          .object({
            /** The mode sessions start in: auto (dsh's default), default, acceptEdits, plan, bypassPermissions. */
            mode: z.enum(PERMISSION_MODES).default('auto'),
            allow: z.array(z.string().min(1)).default([]),
            ask: z.array(z.string().min(1)).default([]),
            deny: z.array(z.string().min(1)).default([]),
            /** Folders besides the project where edits need no approval. */
            additionalDirectories: z.array(z.string().min(1)).default([]),
          })
          .strict(),
      )
      .default({ mode: 'auto', allow: [], ask: [], deny: [], additionalDirectories: [] }),
    skills: z
      .lazy(() =>
        z
          .object({
            dshHome: z.string().min(1).optional(),
            /** Also read skills and commands from ~/.claude and ~/.agents (the user's Claude Code ones). */
            includeUserClaude: z.boolean().default(false),
          })
          .strict(),
      )
      .default({ includeUserClaude: false }),
  })
  .strict()

export type DshConfigFile = z.infer<typeof configSchema>
export type AgentRowConfig = z.infer<ReturnType<typeof agentRowSchema>>

/** Never quotes the value: it may carry a password. */
const POSTGRES_URL_PROBLEM =
  'must be a postgres:// (or postgresql://) URL; a password with / # ? @ or % in it must be percent-encoded'

/** A URL the PostgreSQL driver reads as one: postgres:, postgresql: or its socket: form. */
function isPostgresUrl(value: string): boolean {
  try {
    return ['postgres:', 'postgresql:', 'socket:'].includes(new URL(value).protocol)
  } catch {
    // Not a URL at all.
    return false
  }
}
