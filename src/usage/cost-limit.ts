// The cost budget of one headless run (`dsh run --max-cost`): before every model request
// of any agent in the harness (sub-agents included), the estimated cost spent since the
// run began is derived from the session logs; at or past the limit the step is not sent
// and the turn ends `max-cost`. A policy on `agent/pre-step`, not a change to the loop.

import type { Context } from 'cordis'
import type { AgentHandle } from '../plugin-api/index.js'
import { deriveUsage } from './derive.js'
import { formatCost } from './format.js'
import type { PriceTable } from './price-table.js'

export interface CostLimitConfig {
  /** The most the run may spend, in the table's currency. */
  maxCost: number
  table: PriceTable
}

/** A Cordis plugin: load it on the harness for the run, dispose it after. */
export function costLimitPlugin(config: CostLimitConfig) {
  return {
    name: 'cost-limit',
    apply(ctx: Context) {
      // Each agent's log as it was when this run first saw it: earlier turns are not this run's.
      const baselines = new Map<AgentHandle, number>()
      const spent = (): number | null => {
        let total: number | null = 0
        for (const [agent, from] of baselines) {
          const cost = deriveUsage(agent.session.events.slice(from), config.table).session.cost
          total = total === null || cost === null ? null : total + cost
        }
        return total
      }
      ctx.on('agent/pre-step', (state) => {
        if (!baselines.has(state.agent)) baselines.set(state.agent, state.agent.session.events.length)
        const cost = spent()
        const limit = formatCost(config.maxCost, config.table.currency)
        if (cost === null) {
          state.end = {
            reason: 'max-cost',
            message: `the cost of this run is unknown (a model without a price in pricing.models), so --max-cost ${limit} cannot be kept`,
          }
        } else if (cost >= config.maxCost) {
          state.end = {
            reason: 'max-cost',
            message: `the run's estimated cost ${formatCost(cost, config.table.currency)} reached --max-cost ${limit}`,
          }
        }
      })
    },
  }
}
