// What the model reads of a bash result's streams: the last part, and where the whole
// stream is, or (past the spill file's cap) that the file holds only its first part.

import { describe, expect, it } from 'vitest'
import type { ShellResult } from '../../../src/shell/index.js'
import { renderShellResult } from '../../../src/tools/bash/render.js'

function result(stdout: ShellResult['stdout']): ShellResult {
  const empty = { text: '', totalChars: 0, truncated: false }
  return {
    exitCode: 0,
    signal: null,
    timedOut: false,
    killed: false,
    stdout,
    stderr: empty,
    durationMs: 1,
    workdir: '/w',
  }
}

describe('renderShellResult', () => {
  it('names the spill file, and says when the file stopped at its cap', () => {
    const whole = renderShellResult(
      result({ text: 'tail\n', totalChars: 90_000, truncated: true, fullOutputPath: '/spill/a.txt' }),
    )
    expect(whole).toContain('[output truncated; full output: /spill/a.txt]\ntail')
    const capped = renderShellResult(
      result({
        text: 'tail\n',
        totalChars: 9e9,
        truncated: true,
        fullOutputPath: '/spill/b.txt',
        droppedChars: 123,
      }),
    )
    expect(capped).toContain(
      '[output truncated; full output: /spill/b.txt (only its first part: 123 more characters were dropped)]',
    )
  })
})
