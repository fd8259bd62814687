// One-line error printing: user-facing errors are one line, unexpected ones add a
// hint, and DSH_DEBUG shows the stack.

import { afterEach, expect, it, vi } from 'vitest'
import { CliError, CliErrorCode, ExitCode, reportError, usageError } from '../../../src/apps/shared/errors.js'
import { DshError } from '../../../src/core/errors.js'

let written = ''
afterEach(() => {
  vi.restoreAllMocks()
  written = ''
})

function capture(): void {
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written += String(chunk)
    return true
  })
}

it('prints a user-facing error as one line and returns its exit code', () => {
  capture()
  expect(
    reportError(new DshError('unknown session "x"', 'PERSISTENCE_NOT_FOUND', { userFacing: true }), {}),
  ).toBe(ExitCode.Usage)
  expect(reportError(usageError('--resume and --fork\ncannot be combined'), {})).toBe(ExitCode.Usage)
  expect(reportError(new CliError('no such folder', CliErrorCode.BadCwd), {})).toBe(ExitCode.Usage)
  expect(reportError(new CliError('nothing to continue', CliErrorCode.NoSession), {})).toBe(ExitCode.Failure)
  expect(written).toBe(
    'dsh: unknown session "x"\ndsh: --resume and --fork cannot be combined\ndsh: no such folder\ndsh: nothing to continue\n',
  )
})

it('prints an unexpected error as one line with a DSH_DEBUG hint, and its stack with DSH_DEBUG=1', () => {
  capture()
  expect(reportError(new TypeError('boom'), {})).toBe(ExitCode.Failure)
  expect(written).toBe('dsh: unexpected error: boom (set DSH_DEBUG=1 to see the stack)\n')
  written = ''
  reportError(new TypeError('boom'), { DSH_DEBUG: '1' })
  expect(written.split('\n')[0]).toBe('dsh: unexpected error: boom')
  expect(written).toMatch(/\n\s+at /)
})
