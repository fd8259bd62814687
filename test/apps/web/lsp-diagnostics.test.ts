// The web UI shows an edit's language-server feedback apart, under its diff.

import { expect, it } from 'vitest'
import { diffLines, splitDiagnostics } from '../../../src/apps/web/client/transcript.js'

const result =
  "Edited a.ts\n--- a.ts\n+++ a.ts\n@@ -1 +1 @@\n-x\n+y\n\nLSP: 1 new error in a.ts:\na.ts:1:1: error: Cannot find name 'y'. [typescript 2304]"

it('splits the LSP feedback from the diff', () => {
  expect(diffLines(result)).toEqual(['--- a.ts', '+++ a.ts', '@@ -1 +1 @@', '-x', '+y'])
  expect(splitDiagnostics(result).diagnostics).toBe(
    "LSP: 1 new error in a.ts:\na.ts:1:1: error: Cannot find name 'y'. [typescript 2304]",
  )
  expect(splitDiagnostics('Edited a.ts\n--- a.ts\n+++ a.ts')).toEqual({
    body: 'Edited a.ts\n--- a.ts\n+++ a.ts',
    diagnostics: '',
  })
})
