// The JSON API: sessions (list, show, create, resume, fork, release, remove), turns (prompt,
// stop), compaction, model choice, approvals, trust answers, and the live streams. Bodies are validated with zod.

import type { IncomingMessage, ServerResponse } from 'node:http'
import * as z from 'zod'
import { sniffImageType } from '../../attachments/index.js'
import type { Harness } from '../../harness/compose.js'
import { resolveSessionId } from '../../history/index.js'
import type { ModelChoice } from '../../llm/adapter.js'
import { DEFAULT_EFFORT, EFFORTS } from '../../llm/deepseek/effort.js'
import { DEEPSEEK_MODELS } from '../../llm/deepseek/models.js'
import { HttpError } from './errors.js'
import type { WebHost } from './hosting.js'
import type { SessionRows } from './rows.js'
import type {
  CompactResponse,
  ModelsResponse,
  RemoveResponse,
  SessionResponse,
  SessionsResponse,
} from './types.js'

export interface ApiContext {
  harness: Harness
  host: WebHost
  rows: SessionRows
}

/** The largest request body accepted, in bytes. */
const MAX_BODY_BYTES = 1024 * 1024

const modelChoice = z.object({
  model: z.string().min(1).max(200).optional(),
  effort: z.enum(EFFORTS).optional(),
})
const createBody = modelChoice.extend({ cwd: z.string().min(1).max(4096) })
/** A prompt may carry images (base64): up to the 48 MiB a DeepSeek request body may be. */
const MAX_PROMPT_BODY_BYTES = 48 * 1024 * 1024
const promptBody = z.object({
  text: z.string().min(1).max(MAX_BODY_BYTES),
  // The count is checked with the images (one line naming the limit), not here.
  images: z.array(z.object({ data: z.string().min(1), name: z.string().max(1000).optional() })).optional(),
})
const SHA256 = /^[0-9a-f]{64}$/
const answerBody = z.object({ allow: z.boolean() })
const trustBody = z.object({ trust: z.boolean() })
/** The user's words for the summary, like `/compact focus on the tests`. */
const renameBody = z.object({ title: z.string().max(10_000) })
const compactBody = z.object({ instructions: z.string().max(10_000).optional() })
/** `atTurn`: "fork from here" on a turn (the history up to its end); none: after the last completed turn. */
const forkBody = z.object({ atTurn: z.number().int().min(1).optional() })

export async function routeApi(
  api: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const parts = url.pathname.slice('/api/'.length).split('/')
  const method = req.method ?? 'GET'
  const [area, rawId, action, item] = parts
  const deep = parts.length === 4 && area === 'sessions' && action === 'images'
  if ((parts.length > 3 && !deep) || area === undefined) throw new HttpError(404, 'no such endpoint')

  if (area === 'models' && method === 'GET' && rawId === undefined) {
    sendJson(res, 200, models(api.harness))
    return
  }
  if (area === 'approvals' && method === 'POST' && rawId !== undefined && action === undefined) {
    const { allow } = await readBody(req, answerBody)
    if (!api.host.answer(decode(rawId), allow)) throw new HttpError(404, 'that approval is no longer waiting')
    sendJson(res, 200, { ok: true })
    return
  }
  if (area === 'trust' && method === 'POST' && rawId !== undefined && action === undefined) {
    const { trust } = await readBody(req, trustBody)
    if (!api.host.trust.answer(decode(rawId), trust))
      throw new HttpError(404, 'that trust question is no longer waiting')
    sendJson(res, 200, { ok: true })
    return
  }
  if (area === 'live' && method === 'GET' && rawId === undefined) {
    api.host.subscribeEverywhere(res)
    return
  }
  if (area !== 'sessions') throw new HttpError(404, 'no such endpoint')

  if (rawId === undefined || rawId === '') {
    if (method === 'GET') {
      const sessions = await api.rows.list(url.searchParams.get('q') ?? '', (id) => api.host.status(id))
      sendJson(res, 200, { sessions, currency: api.rows.currency } satisfies SessionsResponse)
      return
    }
    if (method === 'POST') {
      const body = await readBody(req, createBody)
      const id = await api.host.create(body.cwd, choice(body))
      sendJson(res, 201, { id })
      return
    }
    throw new HttpError(405, 'method not allowed')
  }

  // An exact id or a unique prefix of 6+ characters (links may carry a short id).
  const id = await resolveSessionId(api.harness.sessions, decode(rawId))
  if (method === 'GET' && action === undefined) {
    const described = await api.host.describe(id)
    sendJson(res, 200, {
      ...described,
      currency: api.rows.currency,
      prices: api.rows.prices,
    } satisfies SessionResponse)
    return
  }
  if (method === 'GET' && deep) {
    await sendImage(api, res, id, item ?? '')
    return
  }
  if (method === 'GET' && action === 'live') {
    const from = Number(url.searchParams.get('from') ?? '0')
    if (!Number.isSafeInteger(from) || from < 0) throw new HttpError(400, 'from must be a whole number')
    await api.host.subscribe(id, res, from)
    return
  }
  if (method === 'DELETE' && action === undefined) {
    const outcomes = await api.host.remove(id)
    const removed = outcomes.filter((outcome) => outcome.kind === 'removed').map((outcome) => outcome.id)
    const refused = outcomes.flatMap((outcome) =>
      outcome.kind === 'refused' ? [{ id: outcome.id, message: outcome.message }] : [],
    )
    sendJson(res, 200, { removed, refused } satisfies RemoveResponse)
    return
  }
  if (method !== 'POST') throw new HttpError(405, 'method not allowed')
  switch (action) {
    case 'prompt': {
      const { text, images } = await readBody(req, promptBody, MAX_PROMPT_BODY_BYTES)
      await api.host.prompt(id, text, images ?? [])
      sendJson(res, 202, { ok: true })
      return
    }
    case 'compact': {
      const { instructions } = await readBody(req, compactBody)
      const result = await api.host.compact(id, instructions?.trim() || undefined)
      sendJson(res, 200, { result, state: api.host.state(id) } satisfies CompactResponse)
      return
    }
    case 'rename': {
      const { title } = await readBody(req, renameBody)
      await api.host.rename(id, title)
      sendJson(res, 200, { ok: true })
      return
    }
    case 'stop':
      sendJson(res, 200, { stopped: api.host.stop(id) })
      return
    case 'resume':
      await api.host.host(id)
      sendJson(res, 200, { state: api.host.state(id) })
      return
    case 'release':
      await api.host.release(id)
      sendJson(res, 200, { state: api.host.state(id) })
      return
    case 'fork': {
      // A body is optional: a bare POST forks after the last completed turn.
      const { atTurn } = req.headers['content-type'] === undefined ? {} : await readBody(req, forkBody)
      sendJson(res, 201, { id: await api.host.fork(id, atTurn) })
      return
    }
    case 'model':
      api.host.setModel(id, choice(await readBody(req, modelChoice)))
      sendJson(res, 200, { state: api.host.state(id) })
      return
    default:
      throw new HttpError(404, 'no such endpoint')
  }
}

function models(harness: Harness): ModelsResponse {
  const configured = harness.config.model.name
  const names = new Set<string>(DEEPSEEK_MODELS)
  if (configured !== undefined) names.add(configured)
  return {
    models: [...names],
    efforts: [...EFFORTS],
    defaultModel: configured ?? null,
    defaultEffort: harness.config.model.effort ?? DEFAULT_EFFORT,
    cwd: process.cwd(),
  }
}

function choice(body: z.infer<typeof modelChoice>): ModelChoice {
  return {
    ...(body.model !== undefined ? { model: body.model } : {}),
    ...(body.effort !== undefined ? { effort: body.effort } : {}),
  }
}

function decode(segment: string): string {
  try {
    const id = decodeURIComponent(segment)
    if (id === '') throw new HttpError(400, 'empty session id')
    return id
  } catch (error) {
    if (error instanceof HttpError) throw error
    throw new HttpError(400, 'the session id in the path is not valid percent-encoding')
  }
}

/**
 * An image a session stored (a prompt's attachment), for the transcript's thumbnails. Only
 * from that session's own store, behind the same access token as every API call; the type
 * comes from the bytes, and the content-addressed bytes never change, so the page may cache them.
 */
async function sendImage(api: ApiContext, res: ServerResponse, id: string, sha256: string): Promise<void> {
  if (!SHA256.test(sha256)) throw new HttpError(404, 'no such image')
  const data = await api.harness.sessions.getImage(id, sha256)
  const type = data && sniffImageType(data)
  if (!data || !type) throw new HttpError(404, 'no such image')
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': data.length,
    'Cache-Control': 'private, max-age=86400, immutable',
  })
  res.end(data)
}

async function readBody<T>(req: IncomingMessage, schema: z.ZodType<T>, limit = MAX_BODY_BYTES): Promise<T> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
    throw new HttpError(415, 'send application/json')
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) throw new HttpError(413, 'request body too large')
    chunks.push(chunk)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new HttpError(400, 'the request body is not JSON')
  }
  const result = schema.safeParse(parsed)
  if (!result.success) throw new HttpError(400, `invalid request: ${result.error.issues[0]?.message ?? ''}`)
  return result.data
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  })
  res.end(text)
}
