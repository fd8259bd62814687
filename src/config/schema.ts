// The config file schema (`$DSH_HOME/config.yaml` or `--config`). Every default is
// written here, once.

import { z } from 'zod'
import { DEFAULT_EFFORT, EFFORTS } from '../llm/deepseek/effort.js'
import { DEFAULT_API_KEY_ENV } from '../llm/openai/config.js'
export const DEFAULT_MAX_DELEGATION_DEPTH = 2

const sessionId = z.string().min(1, 'must be a non-empty session id')

export const modelConfigSchema = z
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
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().positive().optional(),
    maxRetries: z.number().int().min(0).max(20).optional(),
    /** Stream idle deadline in ms: a request that sends nothing (not even keep-alives) this long fails and is retried. */
    streamIdleTimeoutMs: z.number().int().positive().optional(),
  })
  .strict()

export const persistenceConfigSchema = z
  .object({
    backend: z.enum(['jsonl', 'sqlite', 'memory']).default('jsonl'),
    /** JSONL root. Default: $DSH_HOME/sessions */
    root: z.string().min(1).optional(),
    /** SQLite database file. Default: $DSH_HOME/sessions.db */
    file: z.string().min(1).optional(),
  })
  .strict()

export const hooksConfigSchema = z
  .object({
    /** Claude Code settings files (`{ "hooks": {...} }` or a bare event map). */
    claudeCode: z.array(z.string().min(1)).default([]),
    /** Codex hooks.json files. */
    codex: z.array(z.string().min(1)).default([]),
  })
  .strict()

export const agentRowSchema = z
  .object({
    /** A stable label; a fresh run mints `${id}-session-${uuid}`. */
    id: z.string().min(1),
    model: z.string().min(1).optional(),
    cwd: z.string().min(1).optional(),
    sessionId: sessionId.optional(),
    resumeSessionId: sessionId.optional(),
  })
  .strict()
  .refine((row) => row.sessionId === undefined || row.resumeSessionId === undefined, {
    message: 'sessionId and resumeSessionId are mutually exclusive',
  })

export const configSchema = z
  .object({
    dshHome: z.string().min(1).optional(),
    model: modelConfigSchema.default({
      provider: 'openai',
      apiKeyEnv: DEFAULT_API_KEY_ENV,
      effort: DEFAULT_EFFORT,
    }),
    persistence: persistenceConfigSchema.default({ backend: 'jsonl' }),
    hooks: hooksConfigSchema.default({ claudeCode: [], codex: [] }),
    agents: z.array(agentRowSchema).default([]),
    agent: z
      .object({
        systemPrompt: z.string().optional(),
        maxStepsPerTurn: z.number().int().positive().optional(),
      })
      .strict()
      .default({}),
    subagents: z
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
      .strict()
      .default({ enabled: true, maxDepth: DEFAULT_MAX_DELEGATION_DEPTH }),
    skills: z
      .object({ dshHome: z.string().min(1).optional() })
      .strict()
      .default({}),
  })
  .strict()

export type DshConfigFile = z.infer<typeof configSchema>
export type AgentRowConfig = z.infer<typeof agentRowSchema>
