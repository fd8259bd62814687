// Session and turn events: SessionStart, UserPromptSubmit, Stop/SubagentStop (with the
// consecutive-block cap), StopFailure, SubagentStart and SessionEnd (after a checkpoint,
// so its hooks read a complete transcript).

import { promptWithImageRefs } from '../../attachments/describe.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import type { Session } from '../../session/session.js'
import type { SessionId } from '../../session/types.js'
import type { HookFacts } from './dialect.js'
import { type HookRecord, type HookRecordSink, sessionSink } from './records.js'
import type { BridgeRuntime } from './runtime.js'
import type { HookEventName } from './types.js'

/** Consecutive Stop blocks after which the turn ends anyway (Claude Code's default; CLAUDE_CODE_STOP_HOOK_BLOCK_CAP overrides). */
export const DEFAULT_STOP_BLOCK_CAP = 8

export function stopBlockCap(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP)
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_STOP_BLOCK_CAP
}

export function attachLifecycleHooks(runtime: BridgeRuntime): void {
  const { ctx, dialect, notify } = runtime
  const addContext = (session: Session, event: HookEventName, texts: readonly string[]) => {
    for (const text of texts) session.append('context/added', { source: `${dialect.name}/${event}`, text })
  }
  // SessionStart of a session whose log is still empty: its records and context wait for the
  // first turn, so hooks never make an otherwise abandoned session write a file.
  const pendingStarts = new Map<SessionId, { records: HookRecord[]; context: string[] }>()
  const stopBlocks = new Map<SessionId, number>()
  const cap = stopBlockCap()

  ctx.on('agent/created', async (agent, info) => {
    if (runtime.isSubagent(agent)) return
    const facts: HookFacts = { agent, source: info.source === 'resume' ? 'resume' : 'startup' }
    if (agent.session.length > 0) {
      const outcome = await runtime.fire('SessionStart', facts)
      addContext(agent.session, 'SessionStart', outcome.context)
      return
    }
    const pending = { records: [] as HookRecord[], context: [] as string[] }
    pendingStarts.set(agent.id, pending)
    const outcome = await runtime.fire('SessionStart', facts, (record) => pending.records.push(record))
    pending.context.push(...outcome.context)
  })

  ctx.on('agent/turn-starting', async (state) => {
    stopBlocks.delete(state.agent.id)
    const pending = pendingStarts.get(state.agent.id)
    if (pending) {
      pendingStarts.delete(state.agent.id)
      pending.records.forEach(sessionSink(state.agent.session))
      addContext(state.agent.session, 'SessionStart', pending.context)
    }
    if (runtime.isSubagent(state.agent)) return
    const facts: HookFacts = {
      agent: state.agent,
      turn: state.turn,
      prompt: promptWithImageRefs(state.prompt, state.images),
      signal: state.signal,
    }
    const outcome = await runtime.fire('UserPromptSubmit', facts)
    if (outcome.stop) {
      state.block = outcome.stop.reason || 'stopped by a UserPromptSubmit hook'
      notify(`UserPromptSubmit hook stopped the prompt: ${state.block}`)
    } else if (outcome.decision === 'deny')
      state.block = outcome.reason ?? 'blocked by a UserPromptSubmit hook'
    state.context.push(...outcome.context)
  })

  ctx.on('agent/turn-stopping', async (state) => {
    const child = runtime.isSubagent(state.agent) ? state.agent : undefined
    const event: HookEventName = child ? 'SubagentStop' : 'Stop'
    const parent = child ? ctx.get('agents')?.get(child.session.header.parentSession ?? '') : undefined
    const facts: HookFacts = {
      agent: parent ?? state.agent,
      turn: state.turn,
      stopHookActive: state.continued,
      lastAssistantMessage: state.text,
      signal: state.signal,
      ...(child ? { child } : {}),
    }
    const outcome = await runtime.fire(event, facts, sessionSink(state.agent.session))
    addContext(state.agent.session, event, outcome.context)
    if (outcome.stop) {
      notify(`${event} hook: ${outcome.stop.reason || 'stopped'}`)
      return
    }
    if (outcome.decision !== 'deny') {
      stopBlocks.delete(state.agent.id)
      return
    }
    const blocks = (stopBlocks.get(state.agent.id) ?? 0) + 1
    stopBlocks.set(state.agent.id, blocks)
    if (blocks > cap) {
      notify(
        `${event} hooks blocked the turn from ending ${cap} consecutive times; ending the turn anyway (raise the cap with CLAUDE_CODE_STOP_HOOK_BLOCK_CAP)`,
      )
      return
    }
    state.continueWith = outcome.reason ?? `A ${event} hook asked you to continue.`
  })

  // A turn that ended in an error: StopFailure (its output is ignored, as documented).
  ctx.on('agent/turn-ended', (agent, result) => {
    stopBlocks.delete(agent.id)
    if (result.reason !== 'error' || runtime.isSubagent(agent)) return
    void runtime.fire('StopFailure', {
      agent,
      turn: result.turn,
      error: 'unknown',
      lastAssistantMessage: result.text,
    })
  })

  // Logged in the sub-agent's session, where its context lands.
  ctx.on('subagent/start', async (parent, child) => {
    const outcome = await runtime.fire('SubagentStart', { agent: parent, child }, sessionSink(child.session))
    addContext(child.session, 'SubagentStart', outcome.context)
  })

  ctx.on('agent/disposed', async (agent: AgentHandle) => {
    pendingStarts.delete(agent.id)
    stopBlocks.delete(agent.id)
    if (runtime.isSubagent(agent) || !(await runtime.has('SessionEnd', agent))) return
    const written = agent.session.length > 0
    // Checkpoint: SessionEnd hooks read a transcript that holds everything so far.
    if (written) await ctx.get('sessions')?.flush(agent.session)
    // A session that never ran a turn stays unwritten: its SessionEnd runs are only logged here.
    const record: HookRecordSink = written ? sessionSink(agent.session) : () => {}
    // SessionEnd hooks cannot change anything; their outcome is only recorded.
    await runtime.fire('SessionEnd', { agent, reason: 'other' }, record)
  })
}
