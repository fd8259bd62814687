// Turns a ShellRequest into a fully resolved spec, rejecting malformed requests and
// keys in the wrong channel before any provider spawns anything.

import { resolve } from 'node:path'
import { DshError } from '../core/errors.js'
import { ShellErrorCode } from './errors.js'
import { isDshEnvName } from './namespace.js'
import type { DshEnvSnapshot, ShellRequest, ShellStartRequest } from './types.js'

/** Foreground timeout when a request names none. */
export const DEFAULT_SHELL_TIMEOUT_MS = 120_000
/** Longest foreground timeout; longer requests are capped to it. */
export const MAX_SHELL_TIMEOUT_MS = 600_000

/** A request with every default applied; what a provider runs. */
export interface ShellSpec {
  command: string
  /** Absolute. */
  workdir: string
  /** Undefined for background runs. */
  timeoutMs: number | undefined
  signal?: AbortSignal
  stdin?: string
  env: Readonly<Record<string, string>>
  dshEnv: DshEnvSnapshot
  spillPath?: (stream: 'stdout' | 'stderr') => string
  projectRoot?: string
  readablePaths?: readonly string[]
}

/**
 * Validates and resolves a request. Throws DshError SHELL_WRONG_CHANNEL for a `DSH_*`
 * key in `env` or a non-`DSH_*` key in `dshEnv`, SHELL_BAD_REQUEST for the rest.
 */
export function resolveShellRequest(
  request: ShellRequest | ShellStartRequest,
  background: boolean,
): ShellSpec {
  if (typeof request.command !== 'string' || request.command.trim() === '') {
    throw new DshError('shell request: command must be a non-empty string', ShellErrorCode.BadRequest)
  }
  const env = checkChannel(request.env, 'env')
  const dshEnv = checkChannel(request.dshEnv, 'dshEnv')
  if (request.stdin !== undefined && typeof request.stdin !== 'string') {
    throw new DshError('shell request: stdin must be a string', ShellErrorCode.BadRequest)
  }
  const spec: ShellSpec = {
    command: request.command,
    workdir: resolve(process.cwd(), request.workdir ?? '.'),
    timeoutMs: background ? undefined : resolveTimeout((request as ShellRequest).timeoutMs),
    env,
    dshEnv,
  }
  if (request.signal) spec.signal = request.signal
  if (request.stdin !== undefined) spec.stdin = request.stdin
  if (request.spillPath !== undefined) spec.spillPath = request.spillPath
  if (request.projectRoot !== undefined) spec.projectRoot = resolve(request.projectRoot)
  if (request.readablePaths !== undefined)
    spec.readablePaths = request.readablePaths.map((path) => resolve(path))
  return spec
}

function resolveTimeout(timeoutMs: number | undefined): number {
  if (timeoutMs === undefined) return DEFAULT_SHELL_TIMEOUT_MS
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new DshError(
      `shell request: timeoutMs must be a positive number, got ${timeoutMs}`,
      ShellErrorCode.BadRequest,
    )
  }
  return Math.min(Math.ceil(timeoutMs), MAX_SHELL_TIMEOUT_MS)
}

function checkChannel(
  variables: Readonly<Record<string, string | undefined>> | undefined,
  channel: 'env' | 'dshEnv',
): Record<string, string> {
  const checked: Record<string, string> = {}
  if (variables === undefined) return checked
  for (const [name, value] of Object.entries(variables)) {
    if (value === undefined) continue
    const managed = isDshEnvName(name)
    if (channel === 'env' && managed) {
      throw new DshError(
        `shell request: ${name} is a managed variable; pass it in dshEnv, not env`,
        ShellErrorCode.WrongChannel,
      )
    }
    if (channel === 'dshEnv' && !managed) {
      throw new DshError(
        `shell request: ${name} is not a managed DSH_* variable; pass it in env, not dshEnv`,
        ShellErrorCode.WrongChannel,
      )
    }
    if (name === '' || name.includes('=') || name.includes('\0')) {
      throw new DshError(
        `shell request: invalid variable name ${JSON.stringify(name)}`,
        ShellErrorCode.BadRequest,
      )
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      throw new DshError(
        `shell request: ${name} must be a string without NUL bytes`,
        ShellErrorCode.BadRequest,
      )
    }
    checked[name] = value
  }
  return checked
}
