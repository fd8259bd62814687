// A line-level JSON-RPC client for driving `runStdioServer` in-process over PassThrough
// streams: sends requests, awaits responses by id, and records every line written.

import { PassThrough } from 'node:stream'
import { runStdioServer } from '../../../src/apps/stdio/index.js'
import type { Harness } from '../../../src/harness/index.js'

/** Wire JSON, inspected loosely by assertions. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary wire JSON and assert on its shape
type Wire = any

export interface RpcMessage {
  jsonrpc: string
  id?: string | number | null
  method?: string
  params?: Wire
  result?: Wire
  error?: { code: number; message: string; data?: Wire }
}

export interface StdioClient {
  /** Every message the server wrote, in order (each line parsed as JSON). */
  readonly messages: RpcMessage[]
  /** Resolves when the server's promise resolves. */
  readonly done: Promise<void>
  request(method: string, params?: unknown): Promise<RpcMessage>
  notify(method: string, params?: unknown): void
  /** Writes a raw line (for parse and framing errors). */
  sendLine(line: string): void
  /** The next response carrying `id` (null for parse errors). */
  response(id: string | number | null): Promise<RpcMessage>
  notifications(method: string): RpcMessage[]
  /** Resolves once a message at index `since` or later matches. */
  waitFor(match: (message: RpcMessage) => boolean, since?: number): Promise<RpcMessage>
  /** Ends the input stream (the client went away). */
  end(): void
}

export function startStdioClient(harness: Harness, options: { sessionId?: string } = {}): StdioClient {
  const input = new PassThrough()
  const output = new PassThrough()
  const messages: RpcMessage[] = []
  const waiters: {
    match: (message: RpcMessage) => boolean
    since: number
    resolve: (message: RpcMessage) => void
  }[] = []
  let buffer = ''
  output.setEncoding('utf8')
  output.on('data', (chunk: string) => {
    buffer += chunk
    let newline = buffer.indexOf('\n')
    while (newline >= 0) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      // Throws (and fails the test) when the server writes anything but JSON.
      const message = JSON.parse(line) as RpcMessage
      messages.push(message)
      for (const waiter of [...waiters]) {
        if (messages.length > waiter.since && waiter.match(message)) {
          waiters.splice(waiters.indexOf(waiter), 1)
          waiter.resolve(message)
        }
      }
      newline = buffer.indexOf('\n')
    }
  })
  const done = runStdioServer({ harness, input, output, ...options })
  let nextId = 1

  const waitFor = (match: (message: RpcMessage) => boolean, since = 0) => {
    const seen = messages.slice(since).find(match)
    if (seen) return Promise.resolve(seen)
    return new Promise<RpcMessage>((resolve) => waiters.push({ match, since, resolve }))
  }
  const isResponse = (id: string | number | null) => (message: RpcMessage) =>
    message.method === undefined && message.id === id
  return {
    messages,
    done,
    request(method, params) {
      const id = nextId++
      input.write(
        `${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`,
      )
      return waitFor(isResponse(id))
    },
    notify(method, params) {
      input.write(
        `${JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) })}\n`,
      )
    },
    sendLine(line) {
      input.write(`${line}\n`)
    },
    response: (id) => waitFor(isResponse(id)),
    notifications: (method) => messages.filter((message) => message.method === method),
    waitFor,
    end: () => input.end(),
  }
}
