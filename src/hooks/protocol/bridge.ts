// The wiring shared by both bridges: loads the settings files, then attaches one
// listener per event that has hooks to the loop's pipeline events. Unloading the
// bridge removes the listeners and kills hooks still running.

import type { Context } from 'cordis'
import type { ToolCallInfo } from '../../agent/pipeline.js'
import type { AgentHandle } from '../../agent/types.js'
import { errorMessage } from '../../core/errors.js'
import type { Session } from '../../session/session.js'
import type { SessionHeader, SessionId } from '../../session/types.js'
import type { ToolOutput } from '../../tools/types.js'
import { loadHookFiles } from './config.js'
import type { HookDialect, HookFacts, PayloadServices } from './dialect.js'
import { compileHookTable, dispatchHooks } from './dispatch.js'
import { HookErrorCode } from './errors.js'
import { type HookRecord, type HookRecordSink, sessionSink } from './records.js'
import type { HookEventName, HookWarn, MergedOutcome } from './types.js'

/** Config of a bridge plugin: the settings files to read, in order. */
export interface HookBridgeConfig {
  files: string[]
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
  const warn: HookWarn = (message, code) => logger.warn('[%s] %s', code, message)
  const files = config?.files
  if (!Array.isArray(files) || files.some((file) => typeof file !== 'string')) {
    warn(
      'hook bridge config needs `files`: a list of settings file paths; no hooks registered',
      HookErrorCode.BadConfig,
    )
    return
  }
  const settings = loadHookFiles(files, warn)
  const table = compileHookTable(settings, dialect.name, dialect.events, warn, (m) => logger.info('%s', m))
  if (table.size === 0) return

  // One controller per bridge: aborting it kills every hook this bridge still runs.
  const controller = new AbortController()
  ctx.effect(() => () => controller.abort(), `hooks-${dialect.name}: kill running hooks`)

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
    permissionModeOf: (agent) => ctx.get('permissions')?.hookModeOf(agent) ?? 'default',
  }

  const fire = (event: HookEventName, facts: HookFacts, record: HookRecordSink): Promise<MergedOutcome> =>
    dispatchHooks({
      dialect: dialect.name,
      event,
      groups: table.get(event) ?? [],
      candidates: dialect.matchTarget(event, facts),
      payload: () => dialect.payload(event, facts, services),
      record,
      cwd: (facts.child ?? facts.agent).cwd,
      env: dialect.env(facts),
      shell: () => ctx.get('shell'),
      signal: facts.signal ? AbortSignal.any([controller.signal, facts.signal]) : controller.signal,
      plainStdoutIsContext: dialect.plainStdoutContext.includes(event),
      warn,
      notify: (message) => logger.info('%s', message),
    })
  const has = (event: HookEventName) => table.has(event)
  /** Claude Code gives sub-agent sessions Subagent* events instead of their own lifecycle events. */
  const isSubagent = (agent: AgentHandle) =>
    dialect.subagentEvents && agent.session.header.origin === 'subagent'
  const addContext = (session: Session, event: HookEventName, texts: readonly string[]) => {
    for (const text of texts) session.append('context/added', { source: `${dialect.name}/${event}`, text })
  }

  // `continue: false` from a tool hook stops the agent before its next model request.
  const stopRequests = new Map<SessionId, string>()
  const requestStop = (agent: AgentHandle, outcome: MergedOutcome) => {
    if (outcome.stop) stopRequests.set(agent.id, outcome.stop.reason || `stopped by a ${dialect.name} hook`)
  }
  // Calls this bridge (or a later policy) denied: PostToolUse only runs for tools that ran.
  const denied = new WeakSet<ToolCallInfo>()
  // SessionStart of a session whose log is still empty: its records and context wait for the
  // first turn, so hooks never make an otherwise abandoned session write a file.
  const pendingStarts = new Map<SessionId, { records: HookRecord[]; context: string[] }>()

  if (has('SessionStart')) {
    ctx.on('agent/created', async (agent, info) => {
      if (isSubagent(agent)) return
      const facts: HookFacts = { agent, source: info.source === 'resume' ? 'resume' : 'startup' }
      if (agent.session.length > 0) {
        const outcome = await fire('SessionStart', facts, sessionSink(agent.session))
        addContext(agent.session, 'SessionStart', outcome.context)
        return
      }
      const pending = { records: [] as HookRecord[], context: [] as string[] }
      pendingStarts.set(agent.id, pending)
      const outcome = await fire('SessionStart', facts, (record) => pending.records.push(record))
      pending.context.push(...outcome.context)
    })
    ctx.on('agent/turn-starting', (state) => {
      const pending = pendingStarts.get(state.agent.id)
      if (!pending) return
      pendingStarts.delete(state.agent.id)
      pending.records.forEach(sessionSink(state.agent.session))
      addContext(state.agent.session, 'SessionStart', pending.context)
    })
  }

  if (has('UserPromptSubmit')) {
    ctx.on('agent/turn-starting', async (state) => {
      if (isSubagent(state.agent)) return
      const facts: HookFacts = {
        agent: state.agent,
        turn: state.turn,
        prompt: state.prompt,
        signal: state.signal,
      }
      const outcome = await fire('UserPromptSubmit', facts, sessionSink(state.agent.session))
      if (outcome.stop) state.block = outcome.stop.reason || 'stopped by a UserPromptSubmit hook'
      else if (outcome.decision === 'deny')
        state.block = outcome.reason ?? 'blocked by a UserPromptSubmit hook'
      state.context.push(...outcome.context)
    })
  }

  if (has('PreToolUse')) {
    ctx.on('tools/pre-execute', async (call, next) => {
      const facts: HookFacts = { agent: call.agent, turn: call.turn, tool: toolOf(call), signal: call.signal }
      const outcome = await fire('PreToolUse', facts, sessionSink(call.agent.session))
      addContext(call.agent.session, 'PreToolUse', outcome.context)
      requestStop(call.agent, outcome)
      if (outcome.decision === 'deny' || outcome.stop) {
        denied.add(call)
        return {
          kind: 'deny',
          reason: outcome.reason ?? outcome.stop?.reason ?? 'denied by a PreToolUse hook',
        }
      }
      const downstream = await next()
      if (downstream.kind === 'deny') denied.add(call)
      if (outcome.decision === 'ask' && downstream.kind !== 'deny') {
        return { kind: 'ask', reason: outcome.reason ?? 'a PreToolUse hook asks for approval' }
      }
      return downstream
    })
  }

  if (has('PostToolUse')) {
    ctx.on('tools/post-execute', async (state) => {
      if (denied.has(state.call) || !state.executed) return
      const { agent, turn } = state.call
      const facts: HookFacts = {
        agent,
        turn,
        tool: toolOf(state.call, state.output),
        signal: state.call.signal,
      }
      const outcome = await fire('PostToolUse', facts, sessionSink(agent.session))
      if (outcome.decision === 'deny')
        state.feedback.push(`PostToolUse hook feedback:\n${outcome.reason ?? 'blocked'}`)
      state.context.push(...outcome.context)
      requestStop(agent, outcome)
    })
  }

  if (has('Stop') || has('SubagentStop')) {
    ctx.on('agent/turn-stopping', async (state) => {
      const child = isSubagent(state.agent) ? state.agent : undefined
      const event: HookEventName = child ? 'SubagentStop' : 'Stop'
      if (!has(event)) return
      const parent = child ? ctx.get('agents')?.get(child.session.header.parentSession ?? '') : undefined
      const facts: HookFacts = {
        agent: parent ?? state.agent,
        turn: state.turn,
        stopHookActive: state.continued,
        lastAssistantMessage: state.text,
        signal: state.signal,
        ...(child ? { child } : {}),
      }
      const outcome = await fire(event, facts, sessionSink(state.agent.session))
      addContext(state.agent.session, event, outcome.context)
      // `continue: false` takes precedence over a block: the agent stops.
      if (outcome.stop || outcome.decision !== 'deny') return
      state.continueWith = outcome.reason ?? `A ${event} hook asked you to continue.`
    })
  }

  if (has('SubagentStart')) {
    // Logged in the sub-agent's session, where its context lands.
    ctx.on('subagent/start', async (parent, child) => {
      const outcome = await fire('SubagentStart', { agent: parent, child }, sessionSink(child.session))
      addContext(child.session, 'SubagentStart', outcome.context)
    })
  }

  if (has('SessionEnd')) {
    ctx.on('agent/disposed', async (agent) => {
      if (isSubagent(agent)) return
      // A session that never ran a turn stays unwritten: its SessionEnd runs are only logged here.
      const record: HookRecordSink =
        agent.session.length > 0 ? sessionSink(agent.session) : (entry) => logger.debug('%o', entry)
      // SessionEnd hooks cannot change anything; their outcome is only recorded.
      await fire('SessionEnd', { agent, reason: 'other' }, record)
    })
  }

  ctx.on('agent/disposed', (agent) => {
    pendingStarts.delete(agent.id)
  })
  ctx.on('agent/pre-step', (state) => {
    const reason = stopRequests.get(state.agent.id)
    if (reason === undefined) return
    stopRequests.delete(state.agent.id)
    state.reject = reason
  })
  ctx.on('agent/turn-ended', (agent) => {
    stopRequests.delete(agent.id)
  })
}

function toolOf(call: ToolCallInfo, output?: ToolOutput): NonNullable<HookFacts['tool']> {
  return { name: call.name, callId: call.callId, input: call.input, ...(output ? { output } : {}) }
}
