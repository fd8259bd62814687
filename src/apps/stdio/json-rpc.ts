// JSON-RPC 2.0 framing for one newline-delimited message: classify it with zod, and build
// the response and error objects the server writes.

import * as z from 'zod'
import { DshError, errorMessage } from '../../core/errors.js'
import { JsonRpcErrorCode } from './errors.js'

export type JsonRpcId = string | number | null

export interface JsonRpcRequest {
  id?: JsonRpcId
  method: string
  params?: unknown
}

export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: unknown
}

/** An error answered as a JSON-RPC error object. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
    this.name = 'JsonRpcError'
  }
}

const requestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  method: z.string().min(1),
  params: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
})

/** A client's response to a request dsh sent (`session/requestPermission`). */
export interface JsonRpcResponse {
  id: string | number
  result?: unknown
  error?: JsonRpcErrorObject
}

/** One message: a request (or notification), a response to dsh, or something invalid. */
export type ParsedMessage =
  | { kind: 'request'; request: JsonRpcRequest }
  | { kind: 'response'; response: JsonRpcResponse }
  | { kind: 'invalid'; id: JsonRpcId; error: JsonRpcErrorObject }

export type ParsedLine = ParsedMessage | { kind: 'batch'; items: unknown[] } | { kind: 'blank' }

const responseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number()]),
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
})

/** Parses one line: a message, a batch (a JSON array, its items parsed with `parseMessage`), or blank. */
export function parseLine(line: string): ParsedLine {
  if (line.trim() === '') return { kind: 'blank' }
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (error) {
    return {
      kind: 'invalid',
      id: null,
      error: { code: JsonRpcErrorCode.ParseError, message: `Parse error: ${errorMessage(error)}` },
    }
  }
  if (Array.isArray(value)) return { kind: 'batch', items: value }
  return parseMessage(value)
}

/** Classifies one parsed JSON value. */
export function parseMessage(value: unknown): ParsedMessage {
  const isObject = typeof value === 'object' && value !== null
  if (isObject && !('method' in value) && ('result' in value || 'error' in value)) {
    const response = responseSchema.safeParse(value)
    if (response.success) {
      const { id, result, error } = response.data
      return {
        kind: 'response',
        response: { id, ...('result' in value ? { result } : {}), ...(error ? { error } : {}) },
      }
    }
  }
  const parsed = requestSchema.safeParse(value)
  if (!parsed.success) {
    return {
      kind: 'invalid',
      id: recoverId(value),
      error: {
        code: JsonRpcErrorCode.InvalidRequest,
        message: `Invalid Request: ${summarize(parsed.error)}`,
      },
    }
  }
  const { id, method, params } = parsed.data
  return { kind: 'request', request: { ...(id !== undefined ? { id } : {}), method, params } }
}

/** Validates params with a method's schema; a mismatch is -32602 with the issues as data. */
export function parseParams<Schema extends z.ZodType>(schema: Schema, params: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(params ?? {})
  if (!parsed.success) {
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, `Invalid params: ${summarize(parsed.error)}`, {
      issues: parsed.error.issues.map((issue) => ({ path: issue.path, message: issue.message })),
    })
  }
  return parsed.data
}

/** The error object for anything a handler throws: DshError → -32000 with `data.code`. */
export function toErrorObject(error: unknown): JsonRpcErrorObject {
  if (error instanceof JsonRpcError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.data !== undefined ? { data: error.data } : {}),
    }
  }
  if (error instanceof DshError) {
    return { code: JsonRpcErrorCode.ServerError, message: error.message, data: { code: error.code } }
  }
  return { code: JsonRpcErrorCode.InternalError, message: `Internal error: ${errorMessage(error)}` }
}

export function resultMessage(id: JsonRpcId, result: unknown): object {
  return { jsonrpc: '2.0', id, result: result ?? null }
}

export function errorResponse(id: JsonRpcId, error: JsonRpcErrorObject): object {
  return { jsonrpc: '2.0', id, error }
}

export function notificationMessage(method: string, params: unknown): object {
  return { jsonrpc: '2.0', method, params }
}

function recoverId(value: unknown): JsonRpcId {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null
  const id = (value as { id?: unknown }).id
  return typeof id === 'string' || typeof id === 'number' ? id : null
}

/** One line naming every issue: `path: message; ...`. */
function summarize(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ')
}
