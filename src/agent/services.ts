// The services the loop uses on every step, looked up through fast current-service
// getters: a swapped or unloaded service is seen by the next call.

import type { Context } from 'cordis'
import { currentService } from '../core/service-ref.js'

export function createLoopServices(ctx: Context) {
  return {
    tools: currentService(ctx, 'tools'),
    llm: currentService(ctx, 'llm'),
    sessions: currentService(ctx, 'sessions'),
    context: currentService(ctx, 'context'),
  }
}

export type LoopServices = ReturnType<typeof createLoopServices>
