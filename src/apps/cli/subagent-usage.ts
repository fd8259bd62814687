// What the sub-agents of a headless run spent: every agent started below the run's own
// (sub-agents of sub-agents too), each counted by its own requests, never what a fork-mode
// child inherited, so the run's figures count every request once. `--max-cost` already
// counts them; the usage line and the --json result say so too.

import type { Context } from 'cordis'
import type { AgentHandle } from '../../plugin-api/index.js'
import { addTotals, deriveUsage, emptyTotals, type PriceTable, type UsageTotals } from '../../usage/index.js'

export interface SubagentUsage {
  /** How many sub-agents the run started. */
  readonly count: number
  /** Their requests' usage and cost, or undefined when none ran. */
  totals(table: PriceTable): UsageTotals | undefined
  dispose(): void
}

/** Starts watching for agents below `parent`; call before the turn, read after it. */
export function trackSubagents(ctx: Context, parent: AgentHandle): SubagentUsage {
  const below = new Map<string, AgentHandle>()
  const fork = ctx.plugin({
    name: 'run-subagent-usage',
    apply: (inner: Context) => {
      inner.on('agent/created', (agent) => {
        const from = agent.session.header.parentSession
        if (from === parent.id || (from !== undefined && below.has(from))) below.set(agent.id, agent)
      })
    },
  })
  return {
    get count() {
      return below.size
    },
    totals(table) {
      if (below.size === 0) return undefined
      const sum = emptyTotals()
      for (const agent of below.values()) addTotals(sum, deriveUsage(agent.session.events, table).session)
      return sum
    },
    dispose: () => void fork.dispose(),
  }
}
