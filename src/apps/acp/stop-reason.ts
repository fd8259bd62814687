// How a dsh turn end maps onto an ACP stop reason. `error` has no stop reason: the prompt
// request is answered with a JSON-RPC error instead (see server.ts).

import type { StopReason } from '@agentclientprotocol/sdk'
import type { TurnEndReason } from '../../session/types.js'

const STOP_REASONS: Record<Exclude<TurnEndReason, 'error'>, StopReason> = {
  completed: 'end_turn',
  // Cancelled by the client (session/cancel) or by shutdown.
  aborted: 'cancelled',
  // Only crash repair writes it; a live turn never ends so, but a replayed one may.
  interrupted: 'cancelled',
  // The step budget of one turn ran out: ACP's "maximum number of model requests".
  'max-steps': 'max_turn_requests',
  // A hook or policy refused the prompt: the client drops it from the next prompt's context.
  blocked: 'refusal',
  // The answer was cut at the output limit.
  length: 'max_tokens',
  // The provider's content filter stopped the answer.
  'content-filter': 'refusal',
  // The cost budget of one turn ran out (`dsh run --max-cost`): the nearest ACP budget stop.
  'max-cost': 'max_turn_requests',
  // The repeat guard stopped a model stuck calling the same tool with the same result.
  repeated: 'max_turn_requests',
}

export function toStopReason(reason: Exclude<TurnEndReason, 'error'>): StopReason {
  return STOP_REASONS[reason]
}
