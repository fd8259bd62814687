// What a synchronous call threw, for assertions on error codes and fields.

/** Runs `run` and returns what it threw, or undefined when it returned. */
export function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  return undefined
}
