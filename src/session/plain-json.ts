// Checks that event data is plain JSON: it must survive a JSON round trip unchanged.

/** Returns a description of the first non-JSON value found, or undefined when `value` is plain JSON. */
export function findNonJson(value: unknown, path = 'data', seen = new Set<object>()): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path} is ${value}`
  if (value === undefined) return `${path} is undefined`
  if (typeof value !== 'object') return `${path} is a ${typeof value}`
  if (seen.has(value)) return `${path} is a cycle`
  seen.add(value)
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const problem = findNonJson(value[i], `${path}[${i}]`, seen)
        if (problem) return problem
      }
      return undefined
    }
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) {
      return `${path} is an instance of ${proto?.constructor?.name ?? 'a class'}`
    }
    for (const key of Object.keys(value)) {
      const problem = findNonJson((value as Record<string, unknown>)[key], `${path}.${key}`, seen)
      if (problem) return problem
    }
    return undefined
  } finally {
    seen.delete(value)
  }
}
