// The browser's side of the JSON API: every call carries the access token as a bearer header
// (token.ts); a refused token is forgotten, and the server's 401 says which URL to open.

import type {
  CompactResponse,
  ModelsResponse,
  RemoveResponse,
  SessionResponse,
  SessionState,
  SessionsResponse,
} from '../types.js'
import { authHeaders, forgetToken, withToken } from './token.js'

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    // No cookie is ever needed: the token goes in the header.
    credentials: 'omit',
    headers: {
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...authHeaders(),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  if (response.status === 401) forgetToken()
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = { error: text }
  }
  if (!response.ok)
    throw new ApiError(response.status, (parsed as { error?: string }).error ?? response.statusText)
  return parsed as T
}

const session = (id: string) => `/api/sessions/${encodeURIComponent(id)}`

export const api = {
  sessions: (query: string) => call<SessionsResponse>('GET', `/api/sessions?q=${encodeURIComponent(query)}`),
  session: (id: string) => call<SessionResponse>('GET', session(id)),
  models: () => call<ModelsResponse>('GET', '/api/models'),
  create: (cwd: string, model?: string, effort?: string) =>
    call<{ id: string }>('POST', '/api/sessions', {
      cwd,
      ...(model ? { model } : {}),
      ...(effort ? { effort } : {}),
    }),
  prompt: (id: string, text: string, images: { data: string; name: string }[] = []) =>
    call<{ ok: true }>('POST', `${session(id)}/prompt`, { text, ...(images.length ? { images } : {}) }),
  compact: (id: string, instructions: string) =>
    call<CompactResponse>('POST', `${session(id)}/compact`, {
      ...(instructions.trim() !== '' ? { instructions } : {}),
    }),
  stop: (id: string) => call<{ stopped: boolean }>('POST', `${session(id)}/stop`, {}),
  resume: (id: string) => call<{ state: SessionState }>('POST', `${session(id)}/resume`, {}),
  release: (id: string) => call<{ state: SessionState }>('POST', `${session(id)}/release`, {}),
  remove: (id: string) => call<RemoveResponse>('DELETE', session(id)),
  rename: (id: string, title: string) => call<{ ok: true }>('POST', `${session(id)}/rename`, { title }),
  fork: (id: string, atTurn?: number) =>
    call<{ id: string }>('POST', `${session(id)}/fork`, atTurn !== undefined ? { atTurn } : {}),
  setModel: (id: string, model: string, effort: string) =>
    call<{ state: SessionState }>('POST', `${session(id)}/model`, { model, effort }),
  answer: (approvalId: string, allow: boolean) =>
    call<{ ok: true }>('POST', `/api/approvals/${encodeURIComponent(approvalId)}`, { allow }),
  answerTrust: (questionId: string, trust: boolean) =>
    call<{ ok: true }>('POST', `/api/trust/${encodeURIComponent(questionId)}`, { trust }),
  /** Stream URLs carry the token as `?token=` (an EventSource cannot send headers). */
  liveUrl: (id: string, from: number) => withToken(`${session(id)}/live?from=${from}`),
  trustLiveUrl: () => withToken('/api/live'),
  /** A stored image's bytes, fetched with the header (an <img> URL would have to carry the token). */
  image: async (id: string, sha256: string): Promise<Blob> => {
    const response = await fetch(`${session(id)}/images/${sha256}`, {
      credentials: 'omit',
      headers: authHeaders(),
    })
    if (response.status === 401) forgetToken()
    if (!response.ok) throw new ApiError(response.status, response.statusText)
    return await response.blob()
  },
}
