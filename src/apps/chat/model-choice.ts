// Chat front-end pieces kept out of the chat UI: `/model` and `/effort` (show or change the
// model choice of a live agent from its next step on) and the usage line after a turn.
// Logic only; the chat prints the lines they return.

import type { ResolvedConfig } from '../../config/load.js'
import { DEFAULT_EFFORT, parseEffort } from '../../llm/deepseek/effort.js'
import { DEFAULT_MODEL } from '../../llm/openai/config.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import {
  ESTIMATED_NOTE,
  formatCost,
  formatUsageLine,
  resolvePriceTable,
  turnUsageEstimated,
  usageReport,
} from '../../usage/index.js'
import type { AgentPlan } from '../shared/start.js'

/**
 * Applies `/model <name>` or `/effort <level>` (no argument: describes the current value).
 * The plan is updated too, so sessions started later in the chat keep the choice.
 * Throws a user-facing error for an unknown effort.
 */
export function changeModelChoice(
  agent: AgentHandle,
  plan: Pick<AgentPlan, 'model' | 'config'>,
  what: 'model' | 'effort',
  argument: string,
): string {
  if (what === 'model') {
    if (argument === '') return `model ${currentModel(agent, plan)}`
    agent.setModel({ model: argument })
    plan.model = { ...plan.model, model: argument }
    return `model ${argument} from the next turn on`
  }
  if (argument === '') return `effort ${currentEffort(agent, plan)}`
  const effort = parseEffort(argument, '/effort')
  agent.setModel({ effort })
  plan.model = { ...plan.model, effort }
  return `effort ${effort} from the next turn on`
}

export function currentModel(agent: AgentHandle, plan: Pick<AgentPlan, 'config'>): string {
  return agent.model.model ?? plan.config.model.name ?? DEFAULT_MODEL
}

export function currentEffort(agent: AgentHandle, plan: Pick<AgentPlan, 'config'>): string {
  return agent.model.effort ?? plan.config.model.effort ?? DEFAULT_EFFORT
}

/** `turn 3 · 12,345 in (87% cache hit) · 1,234 out · ~$0.0031 · session ~$0.0120` */
export function turnUsageLine(agent: AgentHandle, turn: number, pricing: ResolvedConfig['pricing']): string {
  const report = usageReport(agent.session.events, turn, resolvePriceTable(pricing))
  const session = formatCost(report.sessionUsage.cost, report.currency)
  const estimated = turnUsageEstimated(agent.session.events, turn) ? ` ${ESTIMATED_NOTE}` : ''
  return `${formatUsageLine(report.usage, report.currency, `turn ${turn} ·`)} · session ${session}${estimated}`
}
