// Error codes of the LSP seam, and the one error that carries data the manager needs: how a
// server process ended while dsh waited for its answer.

import { DshError } from '../core/errors.js'

export const LspErrorCode = {
  /** The server process ended while a request (`initialize` included) waited for its answer. */
  ServerExited: 'LSP_SERVER_EXITED',
} as const

export type LspErrorCode = (typeof LspErrorCode)[keyof typeof LspErrorCode]

/** The server process ended; `reason` says how (`exited with code 3; last stderr line: …`). */
export class LspServerExitedError extends DshError {
  constructor(
    serverId: string,
    readonly reason: string,
  ) {
    super(`${serverId} exited (${reason})`, LspErrorCode.ServerExited)
  }
}
