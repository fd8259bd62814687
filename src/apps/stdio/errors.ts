// Error codes of the stdio JSON-RPC server: the JSON-RPC 2.0 numbers on the wire and the
// dsh codes carried in `error.data.code` of a -32000 answer.

import { stat } from 'node:fs/promises'
import { DshError } from '../../core/errors.js'

export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Any DshError: `data.code` names it. */
  ServerError: -32000,
} as const

export const StdioErrorCode = {
  NotInitialized: 'STDIO_NOT_INITIALIZED',
  AlreadyInitialized: 'STDIO_ALREADY_INITIALIZED',
  TurnRunning: 'STDIO_TURN_RUNNING',
  ShuttingDown: 'STDIO_SHUTTING_DOWN',
  BadCwd: 'STDIO_BAD_CWD',
} as const

/** The `cwd` of `initialize` must be an existing folder: a one-line error otherwise. */
export async function assertDirectory(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined)
  if (!info?.isDirectory()) {
    throw new DshError(
      `working directory ${path} does not exist or is not a directory`,
      StdioErrorCode.BadCwd,
      {
        userFacing: true,
      },
    )
  }
}
