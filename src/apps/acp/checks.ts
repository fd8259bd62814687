// Small helpers of the ACP server: error mapping, request checks, tool-call locations.

import { stat } from 'node:fs/promises'
import { isAbsolute } from 'node:path'
import { RequestError } from '@agentclientprotocol/sdk'
import { DshError } from '../../core/errors.js'
import { AcpErrorCode } from './errors.js'
import { toolLocations } from './file-updates.js'

/** DshError → -32000 with `data.code`; everything else as the SDK maps it. */
export async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof DshError) throw new RequestError(-32000, error.message, { code: error.code })
    throw error
  }
}

export async function assertDirectory(cwd: string): Promise<void> {
  if (!isAbsolute(cwd)) throw new DshError(`cwd must be an absolute path: ${cwd}`, AcpErrorCode.BadCwd)
  const info = await stat(cwd).catch(() => undefined)
  if (!info?.isDirectory()) {
    throw new DshError(`cwd ${cwd} does not exist or is not a directory`, AcpErrorCode.BadCwd)
  }
}

export function locationsOf(name: string, input: unknown, cwd: string) {
  const locations = toolLocations(name, input, cwd)
  return locations.length > 0 ? { locations } : {}
}
