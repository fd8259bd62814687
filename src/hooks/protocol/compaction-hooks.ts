// Compaction events: PreCompact before a compaction (on a durable log, so hooks reading
// `transcript_path` see everything; it may block), then PostCompact and SessionStart with
// source `compact` after it, whose context reaches the model after the boundary.

import type { AgentHandle } from '../../plugin-api/index.js'
import type { Session } from '../../session/session.js'
import type { SessionEvent } from '../../session/types.js'
import type { HookFacts } from './dialect.js'
import type { BridgeRuntime } from './runtime.js'

export function attachCompactionHooks(runtime: BridgeRuntime): void {
  const { ctx, dialect, notify } = runtime
  const agentOf = (session: Session): AgentHandle | undefined => ctx.get('agents')?.get(session.header.id)

  ctx.on('context/pre-compact', async (state) => {
    const agent = agentOf(state.session)
    if (!agent) return
    const trigger = state.trigger
    const facts: HookFacts = {
      agent,
      compaction: {
        trigger,
        ...(state.instructions !== undefined ? { instructions: state.instructions } : {}),
        number: compactionCount(state.session.events) + 1,
      },
      ...(trigger === 'auto' ? turnOf(state.session.events) : {}),
      ...(state.signal ? { signal: state.signal } : {}),
    }
    const outcome = await runtime.fire('PreCompact', facts)
    const block = dialect.compactionBlock(outcome)
    if (block === undefined) return
    state.block = block
    // A manual compaction rejects with the reason; an automatic one is skipped (or, when it
    // was to recover from the server's context-length error, that error stands): say so.
    if (trigger === 'auto')
      notify(`${dialect.name} PreCompact hook blocked an automatic compaction: ${block}`)
    // Codex "stops before compacting": the turn ends before its next model request.
    if (trigger === 'auto' && dialect.name === 'codex') runtime.requestStop(agent, outcome)
  })

  ctx.on('context/compacted', async (session, data) => {
    const agent = agentOf(session)
    if (!agent) return
    const compaction: NonNullable<HookFacts['compaction']> = {
      trigger: data.trigger,
      ...(data.summary !== undefined ? { summary: data.summary } : {}),
      number: compactionCount(session.events),
    }
    const turn = data.trigger === 'auto' ? turnOf(session.events) : {}
    const post = await runtime.fire('PostCompact', { agent, compaction, ...turn })
    if (post.stop && dialect.name === 'codex') {
      // Codex "stops after compacting": a turn ends before its next request; between turns there is nothing to stop.
      if (data.trigger === 'auto') runtime.requestStop(agent, post)
      else notify(`codex PostCompact hook asked to stop: ${post.stop.reason || 'continue: false'}`)
    }
    // Claude Code gives sub-agent sessions no SessionStart of their own (nor after a compaction).
    if (runtime.isSubagent(agent)) return
    const start = await runtime.fire('SessionStart', { agent, source: 'compact' })
    // As at startup: the context is logged, so the next request (and every one after) carries it.
    for (const text of start.context)
      session.append('context/added', { source: `${dialect.name}/SessionStart`, text })
  })
}

/** How many compactions the log holds. */
function compactionCount(events: readonly SessionEvent[]): number {
  let count = 0
  for (const event of events) if (event.type === 'context/compacted') count += 1
  return count
}

/** The running turn's number (the last `turn/start`), for the turn-scoped payload fields. */
function turnOf(events: readonly SessionEvent[]): { turn?: number } {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/start') return { turn: (event.data as { turn: number }).turn }
  }
  return {}
}
