// Request resolution: defaults, caps, and channel rules applied before any spawn.

import { describe, expect, it } from 'vitest'
import { isDshError } from '../../src/core/errors.js'
import {
  DEFAULT_SHELL_TIMEOUT_MS,
  MAX_SHELL_TIMEOUT_MS,
  resolveShellRequest,
  ShellErrorCode,
} from '../../src/shell/index.js'

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    return isDshError(error) ? error.code : 'not a DshError'
  }
  return undefined
}

describe('resolveShellRequest', () => {
  it('fills the documented defaults and resolves the workdir', () => {
    const spec = resolveShellRequest({ command: 'true', workdir: 'sub' }, false)
    expect(spec.timeoutMs).toBe(DEFAULT_SHELL_TIMEOUT_MS)
    expect(spec.workdir).toBe(`${process.cwd()}/sub`)
    expect(spec.env).toEqual({})
    expect(spec.dshEnv).toEqual({})
    expect(resolveShellRequest({ command: 'true' }, false).workdir).toBe(process.cwd())
  })

  it('caps the timeout at 600 s and gives background runs none', () => {
    expect(
      resolveShellRequest({ command: 'true', timeoutMs: 10 * MAX_SHELL_TIMEOUT_MS }, false).timeoutMs,
    ).toBe(MAX_SHELL_TIMEOUT_MS)
    expect(resolveShellRequest({ command: 'true' }, true).timeoutMs).toBeUndefined()
  })

  it.each([
    [{ command: '' }, ShellErrorCode.BadRequest],
    [{ command: '   ' }, ShellErrorCode.BadRequest],
    [{ command: 'true', timeoutMs: 0 }, ShellErrorCode.BadRequest],
    [{ command: 'true', timeoutMs: Number.NaN }, ShellErrorCode.BadRequest],
    [{ command: 'true', env: { 'A=B': 'x' } }, ShellErrorCode.BadRequest],
    [{ command: 'true', env: { A: 'x\0y' } }, ShellErrorCode.BadRequest],
    [{ command: 'true', env: { DSH_SESSION_ID: 'x' } }, ShellErrorCode.WrongChannel],
    [{ command: 'true', env: { DSH_anything: 'x' } }, ShellErrorCode.WrongChannel],
    [{ command: 'true', dshEnv: { PATH: '/evil' } }, ShellErrorCode.WrongChannel],
  ])('rejects %j', (request, code) => {
    expect(codeOf(() => resolveShellRequest(request as never, false))).toBe(code)
  })
})
