// Module-level zod schemas, built on their first use instead of when the module loads: each
// schema costs start-up time to build (about 8 µs, and garbage), and a `dsh run` loads many
// modules whose schemas it never uses before its first model request, or at all (issue #31;
// bench/RESULTS.md, 2026-12-07).

/** A function that builds the schema on its first call and returns that one ever after. */
export function lazySchema<T>(build: () => T): () => T {
  let schema: T | undefined
  return () => {
    schema ??= build()
    return schema
  }
}
