// `model.apiKeyFile`: the API key read from a file at start, so it is never in dsh's
// environment (which commands dsh runs could read through /proc/$PPID/environ).

import { readFileSync } from 'node:fs'
import { DshError } from '../core/errors.js'
import { ConfigErrorCode } from './errors.js'

/** The key in `path` (surrounding whitespace trimmed); a clear error when unreadable or empty. */
export function readApiKeyFile(path: string): string {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new DshError(
      `cannot read model.apiKeyFile ${path}: ${code ?? String(error)}`,
      ConfigErrorCode.Invalid,
      {
        userFacing: true,
      },
    )
  }
  const key = text.trim()
  if (key === '' || /\s/.test(key)) {
    throw new DshError(
      `model.apiKeyFile ${path} must hold one API key (${key === '' ? 'it is empty' : 'found whitespace inside'})`,
      ConfigErrorCode.Invalid,
      { userFacing: true },
    )
  }
  return key
}
