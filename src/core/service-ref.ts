// Fast lookups of optional services on hot paths (every tool call, every model step).
// Cordis hands out a fresh tracing proxy on each `ctx.get` and routes every method call
// through it, which costs microseconds per call; these helpers reach the service object
// itself while still following swaps and unloads at once.

import { type Context, symbols } from 'cordis'

/** The service object behind Cordis's tracing proxy (the value itself when untraced). */
export function untraced<T>(service: T): T {
  if (service === undefined || service === null) return service
  return (service as unknown as Record<symbol, T | undefined>)[symbols.original] ?? service
}

/**
 * Returns a getter for the *current* service `name`, as `ctx.get(name)` would answer,
 * without the proxy. The answer is cached and forgotten whenever Cordis reports that this
 * service changed (registered, replaced or removed), so a swapped backend is seen by the
 * next call. Only for calls that register nothing: a method that creates effects on
 * behalf of its caller must be reached through `ctx.get(name)`.
 */
export function currentService<K extends keyof Context & string>(
  ctx: Context,
  name: K,
): () => Context[K] | undefined {
  let cached: Context[K] | undefined
  let valid = false
  ctx.on('internal/service', (changed) => {
    if (changed === name) valid = false
  })
  return () => {
    if (!valid) {
      cached = untraced(ctx.get(name) as Context[K] | undefined)
      valid = true
    }
    return cached
  }
}

/**
 * Whether any listener is registered for `name`. Dispatching an event through Cordis costs
 * microseconds even with no listener; the loop checks first on its per-step events.
 */
export function hasListeners(ctx: Context, name: string): boolean {
  return (eventsOf(ctx)._hooks[name]?.length ?? 0) > 0
}

type Events = Context['events']
const eventsByContext = new WeakMap<Context, Events>()

/** `ctx.events` without the proxy: the service is the root's and never swapped, so it is kept per context. */
function eventsOf(ctx: Context): Events {
  let events = eventsByContext.get(ctx)
  if (events === undefined) {
    events = untraced(ctx.events)
    eventsByContext.set(ctx, events)
  }
  return events
}
