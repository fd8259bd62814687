// Bounded waits of a language server connection: a timeout around a request, a stream
// drained for at most a while, a plain delay, and how long a wait was, in words.

import type { Readable } from 'node:stream'

export function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`
}

/** A plain (referenced) wait: an unreferenced one let a process with nothing else to do exit mid-stop. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Resolves once `stream` has ended, or after `ms` (a helper process may hold the pipe open). */
export function drained(stream: Readable, ms: number): Promise<void> {
  if (stream.readableEnded || stream.destroyed) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      stream.off('end', done)
      stream.off('close', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    stream.once('end', done)
    stream.once('close', done)
  })
}

/** `promise`, or a rejection with `message` after `ms`, or one once `stop` settles (the caller words it). */
export function withTimeout<T>(
  promise: PromiseLike<T>,
  ms: number,
  message: string,
  stop?: Promise<void>,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms)
    void stop?.then(() => {
      clearTimeout(timer)
      reject(new Error('stopped'))
    })
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
