// What the model sees for a pruned tool output: its size and how to get it back.

import { describe, expect, it } from 'vitest'
import { prunedToolMessage, prunedToolOutput } from '../../src/session/compaction-messages.js'

describe('prunedToolOutput', () => {
  it('names the spill file of a truncated output, wherever its marker line is', () => {
    const head = 'line\n'.repeat(1000)
    const spilled = `${head}[output truncated; full output: /home/u/.dsh/spill/s1/call_7.txt]\ntail`
    expect(prunedToolOutput(spilled)).toBe(
      `[output pruned to save context: ${spilled.length} characters; the full output is in /home/u/.dsh/spill/s1/call_7.txt]`,
    )
    // A broken marker first (cut at a newline), a whole one after it: the whole one counts.
    const broken = `[output truncated; full output: cut\n${head}[output truncated; full output: /spill/b.txt]`
    expect(prunedToolOutput(broken)).toContain('the full output is in /spill/b.txt]')
    expect(prunedToolOutput(head)).toBe(
      `[output pruned to save context: ${head.length} characters; run the call again if you need it (the session log keeps it: dsh sessions show)]`,
    )
  })

  it('makes a new pruned message, never changing the original', () => {
    const message = { role: 'tool' as const, toolCallId: 'c1', content: 'x'.repeat(500) }
    const pruned = prunedToolMessage(message)
    expect(pruned).toEqual({ role: 'tool', toolCallId: 'c1', content: prunedToolOutput('x'.repeat(500)) })
    expect(message.content).toBe('x'.repeat(500))
  })
})
