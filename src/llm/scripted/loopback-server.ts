// The loopback model: a real OpenAI-compatible HTTP server on 127.0.0.1 that plays a
// Script over SSE, so the real adapter, HTTP and SSE parsing run without a key.
// Used by tests and by `dsh demo`.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sleep } from '../abort.js'
import { DEEPSEEK_MODELS } from '../deepseek/models.js'
import { DeepSeekRules, type StrictOptions } from '../deepseek/strict.js'
import type { WebToolsStandIn } from '../deepseek/web-tools-stand-in.js'
import type { WireChatRequest, WireErrorBody } from '../openai/wire-types.js'
import { type ResolvedReply, type Script, ScriptPlayer } from './script.js'
import { decodeWireRequest, encodeCompletion, encodeReplyChunks, encodeTextChunk } from './wire.js'

/** A received request body, parsed from JSON. */
export type ReceivedRequest = WireChatRequest

export interface LoopbackModelOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>`, else 401. */
  apiKey?: string
  /** Also serve DeepSeek's Search and Fetch endpoints (`/v1/tools/search`, `/v1/tools/fetch`). */
  webTools?: WebToolsStandIn
  /**
   * Strict DeepSeek mode: refuses what today's DeepSeek API refuses (unknown model ids,
   * a missing reasoning passback, bad effort values), thinks by default (with thinking
   * disabled it drops the script's reasoning), and reports usage with prompt-cache
   * hits computed from the prefix shared with earlier requests.
   */
  strict?: boolean | StrictOptions
}

export interface LoopbackModel {
  /** `http://127.0.0.1:<port>`; the endpoint is `{baseUrl}/chat/completions`. */
  baseUrl: string
  /** Every parsed request body, in arrival order. */
  requests: ReceivedRequest[]
  /** Steps not played yet. */
  readonly remaining: number
  /** Stops the server and drops open connections. */
  close(): Promise<void>
}

/** Starts a loopback model on an ephemeral port; one script step answers each request. */
export async function startLoopbackModel(
  script: Script,
  options: LoopbackModelOptions = {},
): Promise<LoopbackModel> {
  const player = new ScriptPlayer(script)
  const requests: ReceivedRequest[] = []
  const rules = options.strict
    ? new DeepSeekRules(typeof options.strict === 'object' ? options.strict : {})
    : undefined
  let served = 0

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0]!
    if (options.webTools && (await options.webTools.handle(req, res, path))) return
    if (req.method === 'GET' && path.endsWith('/models')) {
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        sendError(res, 401, 'loopback model: invalid API key')
        return
      }
      res.writeHead(200, { 'Content-Type': 'application/json' })
      const data = DEEPSEEK_MODELS.map((id) => ({ id, object: 'model', owned_by: 'deepseek' }))
      res.end(JSON.stringify({ object: 'list', data }))
      return
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      sendError(res, 404, `loopback model: no route for ${req.method} ${path}`)
      return
    }
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendError(res, 401, 'loopback model: invalid API key')
      return
    }
    let body: WireChatRequest
    try {
      body = JSON.parse(await readBody(req)) as WireChatRequest
    } catch {
      sendError(res, 400, 'loopback model: the request body is not JSON')
      return
    }
    requests.push(body)
    served += 1
    const refusal = rules?.refuse(body)
    if (refusal) {
      sendError(res, refusal.status, refusal.message, undefined, refusal.type)
      return
    }
    let step: Awaited<ReturnType<ScriptPlayer['play']>>
    try {
      step = await player.play(decodeWireRequest(body))
    } catch (error) {
      sendError(res, 500, `loopback model: script step ${player.played} threw: ${String(error)}`)
      return
    }
    if (!step) {
      sendError(res, 500, player.exhaustedMessage())
      return
    }
    if (step.kind === 'http') {
      sendError(res, step.status, step.message, step.retryAfter, step.type)
      return
    }
    if (rules) strictReply(rules, body, step.reply)
    const meta = {
      id: `chatcmpl-loopback-${served}`,
      model: body.model,
      created: Math.floor(Date.now() / 1000),
    }
    if (body.stream === false) {
      if (step.reply.cutAfterChunks !== undefined) {
        req.socket.destroy()
        return
      }
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify(encodeCompletion(step.reply, meta)))
      return
    }
    await streamReply(req, res, step.reply, meta)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, `loopback model: ${String(error)}`)
      else res.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    get remaining() {
      return player.remaining
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeAllConnections()
      }),
  }
}

async function streamReply(
  req: IncomingMessage,
  res: ServerResponse,
  reply: ResolvedReply,
  meta: { id: string; model: string; created: number },
): Promise<void> {
  // Stops delays and writes as soon as the client goes away.
  const gone = new AbortController()
  res.on('close', () => gone.abort())
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
  })
  res.flushHeaders()
  try {
    if (reply.stallMs !== undefined) await sleep(reply.stallMs, gone.signal)
    for (let i = 0; i < (reply.keepAlive?.count ?? 0); i++) {
      await sleep(reply.keepAlive!.intervalMs, gone.signal)
      res.write(': keep-alive\n\n')
    }
  } catch {
    // The client went away while the server stalled: nobody is left to write to.
    return
  }
  if (reply.endless) {
    await streamEndlessly(res, reply.endless, meta, gone.signal)
    return
  }
  const events = [...encodeReplyChunks(reply, meta).map((chunk) => JSON.stringify(chunk)), '[DONE]']
  for (const [index, data] of events.entries()) {
    if (index === reply.cutAfterChunks) {
      req.socket.destroy()
      return
    }
    if (reply.delayMs > 0) {
      try {
        await sleep(reply.delayMs, gone.signal)
      } catch {
        // The client disconnected during the pause: nobody is left to write to.
        return
      }
    }
    if (gone.signal.aborted) return
    const event = `data: ${data}\n\n`
    if (reply.cutAfterChunks === undefined) res.write(event)
    // Before a planned cut, wait until the kernel has the bytes: destroy() drops queued writes.
    else await new Promise<void>((resolve) => res.write(event, () => resolve()))
  }
  res.end()
}

/** A runaway server: the same content delta every `intervalMs`, never a finish, until the client leaves. */
async function streamEndlessly(
  res: ServerResponse,
  endless: { text: string; intervalMs: number },
  meta: { id: string; model: string; created: number },
  gone: AbortSignal,
): Promise<void> {
  const event = `data: ${JSON.stringify(encodeTextChunk(endless.text, meta))}\n\n`
  while (!gone.aborted) {
    res.write(event)
    try {
      await sleep(endless.intervalMs, gone)
    } catch {
      // The client went away: the only way this stream ends.
      return
    }
  }
}

/** What a strict server does to a scripted reply: drops reasoning when not thinking, remembers it, counts the cache. */
function strictReply(rules: DeepSeekRules, body: WireChatRequest, reply: ResolvedReply): void {
  const tokens = (text: string) => Math.ceil(text.length / 4)
  // A server that does not think sends no reasoning, whatever the script says.
  if (!rules.thinking(body)) reply.reasoning = ''
  rules.recordReply(
    reply.reasoning,
    reply.toolCalls.map((call) => call.id),
    reply.text,
  )
  const reasoningTokens = tokens(reply.reasoning)
  const completion =
    reasoningTokens +
    tokens(reply.text) +
    reply.toolCalls.reduce((sum, call) => sum + tokens(call.arguments), 0)
  const usage = rules.usage(body, completion, reasoningTokens)
  reply.usage = {
    promptTokens: usage.prompt_tokens!,
    completionTokens: completion,
    totalTokens: usage.total_tokens!,
    cachedTokens: usage.prompt_cache_hit_tokens!,
    ...(reasoningTokens > 0 ? { reasoningTokens } : {}),
  }
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  retryAfter?: string,
  type?: string,
): void {
  const body: WireErrorBody = {
    error: { message, type: type ?? (status === 429 ? 'rate_limit_error' : 'loopback_error') },
  }
  const headers: Record<string, string> = { 'Content-Type': 'application/json' }
  if (retryAfter !== undefined) headers['Retry-After'] = retryAfter
  res.writeHead(status, headers)
  res.end(JSON.stringify(body))
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
    req.on('error', reject)
  })
}
