// What a call threw or a promise rejected with, for assertions on error codes and fields.

import { expect } from 'vitest'

/** Runs `run` and returns what it threw, or undefined when it returned. */
export function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  return undefined
}

/** What `promise` rejected with, or undefined when it resolved. */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
}

/** The Error `promise` rejected with; fails the test when it resolved or rejected with a non-Error. */
export async function rejectedError<E extends Error = Error>(promise: Promise<unknown>): Promise<E> {
  const reason = await rejectionOf(promise)
  expect(reason, 'expected a rejection').toBeInstanceOf(Error)
  return reason as E
}
