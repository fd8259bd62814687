// The wiring shared by both bridges: finds the hook files (config, user, project), then
// attaches listeners to the loop's pipeline events and fires the dialect's events from
// them. Unloading the bridge removes the listeners and kills hooks still running.

import { homedir } from 'node:os'
import type { Context } from 'cordis'
import { errorMessage } from '../../core/errors.js'
import { findProjectRoot } from '../../core/project-root.js'
import { toTerminalText } from '../../core/terminal-text.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import type { SessionHeader, SessionId } from '../../session/types.js'
import { attachCompactionHooks } from './compaction-hooks.js'
import { loadHookFiles } from './config.js'
import type { HookDialect, PayloadServices } from './dialect.js'
import {
  changedProjectFiles,
  compileFor,
  type DiscoveryOptions,
  loadProjectHooks,
  type ProjectHooks,
  readProjectHooks,
} from './discovery.js'
import { dispatchHooks, type HookTable } from './dispatch.js'
import { HookErrorCode } from './errors.js'
import { attachLifecycleHooks } from './lifecycle.js'
import { mergeOutcomes } from './merge.js'
import { sessionSink } from './records.js'
import type { BridgeRuntime, HookBridgeConfig } from './runtime.js'
import { attachSessionEnv, prepareSessionEnvFile } from './session-env.js'
import { attachToolHooks } from './tool-hooks.js'
import { resolveToolShape, toHookInput } from './tool-shape.js'
import type { HookWarn } from './types.js'

export type { BridgeRuntime, HookBridgeConfig } from './runtime.js'

/** The default locations of each dialect's files. */
export const HOOK_FILE_LOCATIONS = {
  'claude-code': {
    project: ['.claude/settings.json', '.claude/settings.local.json'],
    user: '.claude/settings.json',
  },
  codex: { project: ['.codex/hooks.json'], user: '.codex/hooks.json' },
} as const

declare module 'cordis' {
  interface Events {
    /**
     * A line a hook wants the user of `sessionId` to see (a `systemMessage`, a hook that
     * could not start, a hook that stopped the agent), for front ends that show it in that
     * session (ACP); the line also goes to the log as before.
     */
    'hooks/notice'(sessionId: SessionId, message: string): void
  }
}

/** Builds the Cordis plugin of one dialect (name `hooks-<dialect>`). */
export function createHookBridgePlugin(dialect: HookDialect) {
  return {
    name: `hooks-${dialect.name}`,
    apply(ctx: Context, config: HookBridgeConfig) {
      applyBridge(ctx, dialect, config)
    },
  }
}

function applyBridge(ctx: Context, dialect: HookDialect, config: HookBridgeConfig | undefined): void {
  const logger = ctx.logger(`hooks:${dialect.name}`)
  // Messages hold commands (`date +%s`): pass them as arguments, never as format strings.
  const warn: HookWarn = (message, code) => logger.warn('[%s] %s', code, toTerminalText(message))
  const notify = (message: string) => logger.warn('%s', toTerminalText(message))
  const files = config?.files
  if (!config || !Array.isArray(files) || files.some((file) => typeof file !== 'string')) {
    warn(
      'hook bridge config needs `files`: a list of settings file paths; no hooks registered',
      HookErrorCode.BadConfig,
    )
    return
  }
  const discovery: DiscoveryOptions = {
    dialect: dialect.name,
    supported: dialect.events,
    locations: HOOK_FILE_LOCATIONS[dialect.name],
    warn,
    notify,
    trust: () => ctx.get('projectTrust'),
  }
  const base = compileFor(loadHookFiles(files, warn), discovery)
  if (base.size === 0 && !config.projectFiles) return
  if (config.projectFiles) {
    // A trust question asked for a folder's rules or MCP servers names its hooks too.
    ctx.on('trust/brings', (folder, brings) => {
      // Silent: loading the project's hooks reports a bad file once, when it is read for real.
      const found = folder === homedir() ? undefined : readProjectHooks(folder, discovery, () => {})
      if (found) brings.push(found.brings)
    })
  }

  // One controller per bridge: aborting it kills every hook this bridge still runs.
  const controller = new AbortController()
  ctx.effect(() => () => controller.abort(), `hooks-${dialect.name}: kill running hooks`)

  const projects = new Map<string, Promise<ProjectHooks>>()
  const roots = new Map<string, string>()
  const rootOf = (cwd: string) => {
    let root = roots.get(cwd)
    if (root === undefined) {
      root = findProjectRoot(cwd)
      roots.set(cwd, root)
    }
    return root
  }
  const projectOf = (agent: AgentHandle): Promise<ProjectHooks> | undefined => {
    if (!config.projectFiles) return undefined
    const root = rootOf(agent.cwd)
    // The home folder is never a project: its `.claude/settings.json` is the user-level file.
    if (root === homedir()) return undefined
    let project = projects.get(root)
    if (!project) {
      project = loadProjectHooks(root, base, discovery)
      projects.set(root, project)
    }
    return project
  }
  const tableOf = async (agent: AgentHandle): Promise<HookTable> => (await projectOf(agent))?.table ?? base

  const services: PayloadServices = {
    locate(header: Readonly<SessionHeader>) {
      try {
        return ctx.get('sessionPersistence')?.locate(header as SessionHeader)
      } catch (error) {
        logger.warn('transcript lookup failed: %s', errorMessage(error))
        return undefined
      }
    },
    modelOf: (agent) => agent.model.model ?? ctx.get('llm')?.defaultModel ?? '',
    effortOf: (agent) => agent.model.effort ?? ctx.get('llm')?.defaultEffort ?? '',
    toolShape: (name) => resolveToolShape(dialect.name, name, ctx.get('tools'), dialect.fallbackToolNames),
    // The policy's mode in Claude Code's names (dsh's own `auto` is reported as `default`).
    permissionMode: (agent) => ctx.get('permissions')?.hookModeOf(agent) ?? 'default',
  }

  // SessionStart hooks get the session env file; later bash calls source what they wrote.
  attachSessionEnv(ctx, dialect)
  const withEnvFile = (env: Record<string, string> | undefined, id: SessionId) => {
    const file = prepareSessionEnvFile(ctx, dialect, id)
    return file === undefined ? env : { ...env, [dialect.envFileVariable]: file }
  }

  const onceRan = new Set<string>()
  const stopRequests = new Map<SessionId, string>()
  const runtime: BridgeRuntime = {
    ctx,
    dialect,
    config,
    services,
    warn,
    notify,
    isSubagent: (agent) => dialect.subagentEvents && agent.session.header.origin === 'subagent',
    async has(event, agent) {
      return (await tableOf(agent)).has(event)
    },
    async fire(event, facts, record) {
      const owner = facts.child ?? facts.agent
      const groups = (await tableOf(owner)).get(event)
      if (!groups) return mergeOutcomes([])
      const scoped = { ...facts, projectDir: rootOf(owner.cwd) }
      const tool = facts.tool
      const shape = tool ? services.toolShape(tool.name) : undefined
      return dispatchHooks({
        dialect: dialect.name,
        event,
        groups,
        candidates: dialect.matchTarget(event, scoped, services),
        ...(tool && shape
          ? { subject: { tool: shape.name, input: toHookInput(shape, tool.input), cwd: owner.cwd } }
          : {}),
        payload: () => dialect.payload(event, scoped, services),
        record: record ?? sessionSink(facts.agent.session),
        cwd: owner.cwd,
        env: event === 'SessionStart' ? withEnvFile(dialect.env(scoped), owner.id) : dialect.env(scoped),
        shell: () => ctx.get('shell'),
        signal: facts.signal ? AbortSignal.any([controller.signal, facts.signal]) : controller.signal,
        plainStdoutIsContext: dialect.plainStdoutContext.includes(event),
        warn,
        notify: (message) => {
          notify(message)
          ctx.emit('hooks/notice', facts.agent.id, toTerminalText(message))
        },
        showSystemMessage: !dialect.discardsSystemMessage.includes(event),
        once: (key) => {
          const id = `${owner.id}\0${key}`
          if (onceRan.has(id)) return true
          onceRan.add(id)
          return false
        },
      })
    },
    requestStop(agent, outcome) {
      if (!outcome.stop) return
      const reason = outcome.stop.reason || `stopped by a ${dialect.name} hook`
      notify(`${dialect.name} hook stopped the agent: ${reason}`)
      ctx.emit('hooks/notice', agent.id, toTerminalText(`${dialect.name} hook stopped the agent: ${reason}`))
      stopRequests.set(agent.id, reason)
    },
  }

  attachToolHooks(runtime)
  attachLifecycleHooks(runtime)
  attachCompactionHooks(runtime)

  // Project files that appeared or changed after they were read are reported at the next turn.
  if (config.projectFiles) {
    ctx.on('agent/turn-starting', async (state) => {
      const project = await projectOf(state.agent)
      if (!project) return
      for (const file of changedProjectFiles(project))
        notify(
          `hook file ${file} changed after this session loaded its hooks; the change is not loaded until dsh restarts`,
        )
    })
  }
  ctx.on('agent/pre-step', (state) => {
    const reason = stopRequests.get(state.agent.id)
    if (reason === undefined) return
    stopRequests.delete(state.agent.id)
    state.reject = reason
  })
  ctx.on('agent/turn-ended', (agent) => {
    stopRequests.delete(agent.id)
  })
  ctx.on('agent/disposed', (agent) => {
    for (const id of onceRan) if (id.startsWith(`${agent.id}\0`)) onceRan.delete(id)
  })
}
