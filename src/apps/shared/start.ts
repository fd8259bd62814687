// Starting an agent from the command line: load the config, check the API key before
// anything is created, compose the harness, and pick the session the flags ask for.

import { randomUUID } from 'node:crypto'
import { dirname } from 'node:path'
import { mintSessionId, startConfiguredAgent } from '../../agent/configured.js'
import { currentSettings } from '../../agent/index.js'
import { readApiKeyFile } from '../../config/api-key-file.js'
import type { ResolvedConfig } from '../../config/load.js'
import { readConfig } from '../../config/load.js'
import type { AgentRowConfig } from '../../config/schema.js'
import { DshError, isDshError } from '../../core/errors.js'
import { createHarness, type Harness, type HarnessOptions } from '../../harness/compose.js'
import { latestResumable, resolveSessionId } from '../../history/index.js'
import { absolutePath } from '../../home/resolve-home.js'
import type { ModelChoice } from '../../llm/adapter.js'
import { parseEffort } from '../../llm/deepseek/effort.js'
import { LlmErrorCode } from '../../llm/errors.js'
import { requireApiKey, resolveOpenAiConfig } from '../../llm/openai/config.js'
import type { PermissionMode } from '../../permissions/index.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import { SETTING_NAMES, sessionSettings } from '../../session/index.js'
import type { SessionId, SessionSettings } from '../../session/types.js'
import { orphanedCommandLines } from '../../shell/index.js'
import { CliError, CliErrorCode, usageError } from './errors.js'
import { logToStderr } from './logging.js'
import {
  type AgentOptions,
  checkSessionFlags,
  parseTurn,
  permissionFlags,
  resolveCwd,
  sandboxFlags,
} from './options.js'

/** Everything a command needs before it composes a harness. */
export interface AgentPlan {
  config: ResolvedConfig
  /** Absolute working folder for a new session. */
  cwd: string
  /** True when the user named the folder (`--cwd` or the agents[] row). */
  cwdGiven: boolean
  model: ModelChoice
  /** The model and effort the command line (or agents[] row) chose, never changed by `/model`: they win over a restored session's. */
  flagModel: ModelChoice
  row?: AgentRowConfig
  /** The permission flags, checked. */
  permissions: ReturnType<typeof permissionFlags>
}

/**
 * Validates flags, loads the config, resolves the cwd and checks that the API key is
 * set — all before a harness or session exists. Throws user-facing errors.
 */
export async function planAgent(
  options: AgentOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<AgentPlan> {
  checkSessionFlags(options)
  const permissions = permissionFlags(options)
  const sandbox = sandboxFlags(options)
  const effort = options.effort === undefined ? undefined : parseEffort(options.effort)
  const loaded = await readConfig({ ...(options.config !== undefined ? { file: options.config } : {}), env })
  const flagged = Object.entries(sandbox).map(([key, value]) => [
    key,
    key === 'sandbox' ? '--sandbox' : value ? '--sandbox-network' : '--no-sandbox-network',
  ])
  const config = {
    ...loaded,
    ...sandbox,
    sources: { ...loaded.sources, ...Object.fromEntries(flagged.map(([k, f]) => [k, `flag ${f}`])) },
  }
  const row = options.agent === undefined ? undefined : findRow(config, options.agent)
  // A row's relative cwd is relative to the config file, like every path in it.
  const rowBase = config.source !== undefined ? dirname(config.source) : process.cwd()
  const cwdOption = options.cwd ?? (row?.cwd !== undefined ? absolutePath(row.cwd, rowBase) : undefined)
  const cwd = resolveCwd(cwdOption, options.cwd !== undefined ? '--cwd' : 'agents[].cwd')
  checkApiKey(config, env)
  const name = options.model ?? row?.model
  const model: ModelChoice = {
    ...(name !== undefined ? { model: name } : {}),
    ...(effort !== undefined ? { effort } : {}),
  }
  return {
    config,
    cwd,
    cwdGiven: cwdOption !== undefined,
    model,
    flagModel: { ...model },
    row,
    permissions,
  }
}

/**
 * The adapter's key rule checked up front, so no session is created without a key: one is
 * required unless the base URL is on loopback or the config says `model.apiKey: none`.
 */
export function checkApiKey(config: ResolvedConfig, env: NodeJS.ProcessEnv = process.env): void {
  if (config.model.apiKeyFile !== undefined) {
    readApiKeyFile(config.model.apiKeyFile)
    return
  }
  try {
    requireApiKey(
      resolveOpenAiConfig(
        {
          apiKeyEnv: config.model.apiKeyEnv,
          baseUrl: config.model.baseUrl,
          noKey: config.model.apiKey === 'none',
        },
        env,
      ),
      env,
    )
  } catch (error) {
    if (!isDshError(error, LlmErrorCode.NoApiKey)) throw error
    throw new DshError(`${error.message} (or try \`dsh demo\`, which needs none)`, error.code, {
      userFacing: true,
    })
  }
}

/**
 * Composes the harness from the plan's config, its log messages going to stderr. `canAsk`:
 * whether this front end can put an `ask` to the user (chat) or must deny it (`dsh run`);
 * `trust`: how project folders are trusted to bring hooks, MCP servers, rules and skills;
 * `log`: where log lines go instead of stderr (the chat draws them above its input).
 */
export async function openHarness(
  plan: AgentPlan,
  front: {
    canAsk: boolean
    trust?: HarnessOptions['trust']
    log?: (line: string) => void
    mcp?: HarnessOptions['mcp']
  },
): Promise<Harness> {
  warnIfBypassing(plan.permissions.mode ?? plan.config.permissions.mode)
  // Commands an earlier dsh left running when it was killed: one line each, before anything starts.
  for (const line of orphanedCommandLines(plan.config.home, plan.config.orphanedCommands === 'kill')) {
    if (front.log) front.log(line)
    else process.stderr.write(`${line}\n`)
  }
  const harness = await createHarness({
    config: plan.config,
    permissions: {
      ...plan.permissions,
      canAsk: front.canAsk,
      frontEnd: front.canAsk ? 'interactive' : 'headless',
    },
    ...(front.trust ? { trust: front.trust } : {}),
    ...(front.mcp ? { mcp: front.mcp } : {}),
  })
  logToStderr(harness.ctx, process.env, front.log)
  return harness
}

/** The one warning line of bypassPermissions (no root refusal), on stderr. */
export function warnIfBypassing(mode: PermissionMode | undefined): void {
  if (mode !== 'bypassPermissions') return
  process.stderr.write(
    'dsh: warning: permission mode bypassPermissions: every tool call runs without asking, also outside the project (deny rules still apply)\n',
  )
}

/** What `startAgent` did, for a one-line notice. */
export interface StartedAgent {
  agent: AgentHandle
  how: 'new' | 'resumed' | 'forked'
  /** The session a fork was seeded from. */
  parent?: SessionId
  /** The settings a resumed or forked session restored from its log (those no flag overrode). */
  restored?: SessionSettings
}

/**
 * Creates, resumes or forks the agent the flags ask for. Unknown ids reject with the
 * persistence seam's user-facing "unknown session" error.
 */
export async function startAgent(
  harness: Harness,
  plan: AgentPlan,
  options: AgentOptions,
): Promise<StartedAgent> {
  const { agents, sessions } = harness
  const model = plan.model
  const restoring = (agent: AgentHandle) => restoredSettings(harness, agent, plan)
  // `true` (the chat's picker) never gets here: checkSessionFlags refuses it.
  if (typeof options.resume === 'string') {
    const id = await resolveSessionId(sessions, options.resume)
    const agent = await agents.resume({ resumeSessionId: id, model })
    return { agent, how: 'resumed', restored: restoring(agent) }
  }
  if (options.continue) {
    const latest = await latestSessionIn(harness, plan.cwd)
    if (latest === undefined) {
      throw new CliError(`no session with a prompt to continue in ${plan.cwd}`, CliErrorCode.NoSession)
    }
    const agent = await agents.resume({ resumeSessionId: latest, model })
    return { agent, how: 'resumed', restored: restoring(agent) }
  }
  if (options.fork !== undefined) {
    const parent = await resolveSessionId(sessions, options.fork)
    const atTurn = options.atTurn === undefined ? undefined : parseTurn(options.atTurn)
    const agent = await forkStored(harness, parent, model, atTurn)
    return { agent, how: 'forked', parent, restored: restoring(agent) }
  }
  // Resume-or-create for an exact id, resume-only for a row's resumeSessionId, else a fresh id.
  const label = plan.row?.id
  const exact = options.sessionId ?? plan.row?.sessionId
  const resumeId = options.sessionId === undefined ? plan.row?.resumeSessionId : undefined
  const stored = exact !== undefined && (await sessions.exists(exact))
  const agent = await startConfiguredAgent(agents, async () => stored, {
    id: label ?? 'dsh',
    sessionId: exact ?? (resumeId === undefined ? freshId(label) : undefined),
    resumeSessionId: resumeId,
    model,
    meta: { cwd: plan.cwd },
  })
  if (!stored && resumeId === undefined) return { agent, how: 'new' }
  // Resumed by `--session-id` or an agents[] row: its settings came back as with `-r`.
  return { agent, how: 'resumed', restored: restoring(agent) }
}

/** The session `--continue` picks: the latest top-level one of `cwd` with a turn (never an empty one). */
export async function latestSessionIn(harness: Harness, cwd: string): Promise<SessionId | undefined> {
  return latestResumable(await harness.sessions.listStored(), cwd)
}

/**
 * Forks a live or stored session into a new agent, after turn `atTurn` when given (else
 * after its last completed turn); the source is left unchanged.
 */
export function forkStored(
  harness: Harness,
  sourceId: SessionId,
  model: ModelChoice,
  atTurn?: number,
): Promise<AgentHandle> {
  return harness.agents.fork({
    sourceSessionId: sourceId,
    model,
    ...(atTurn !== undefined ? { atTurn } : {}),
  })
}

/**
 * The settings a resumed or forked agent took from its log: those the log recorded that it
 * runs with now and that no flag chose (`-m`, `--effort`, `--permission-mode`).
 */
export function restoredSettings(
  harness: Harness,
  agent: AgentHandle,
  plan: Pick<AgentPlan, 'flagModel' | 'permissions'>,
): SessionSettings {
  const recorded = sessionSettings(agent.session)
  const current = currentSettings(harness.ctx, agent)
  const flags: SessionSettings = {
    ...(plan.flagModel.model !== undefined ? { model: plan.flagModel.model } : {}),
    ...(plan.flagModel.effort !== undefined ? { effort: plan.flagModel.effort } : {}),
    ...(plan.permissions.mode !== undefined ? { mode: plan.permissions.mode } : {}),
  }
  const restored: Record<string, string> = {}
  for (const name of SETTING_NAMES) {
    const value = recorded[name]
    if (value !== undefined && flags[name] === undefined && current[name] === value) restored[name] = value
  }
  return restored as SessionSettings
}

function freshId(label: string | undefined): SessionId {
  return label === undefined ? randomUUID() : mintSessionId(label)
}

function findRow(config: ResolvedConfig, label: string): AgentRowConfig {
  const row = config.agents.find((candidate) => candidate.id === label)
  if (row) return row
  const known = config.agents.map((candidate) => candidate.id)
  throw usageError(
    `--agent ${JSON.stringify(label)}: no such row in agents[] of the config` +
      (known.length > 0 ? ` (known: ${known.join(', ')})` : ''),
  )
}
