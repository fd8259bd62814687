import { describe, expect, it } from 'vitest'
import {
  hookInvokedRecord,
  hookResultRecord,
  MAX_STDERR_SUMMARY_BYTES,
  sessionSink,
  truncateUtf8,
} from '../../src/hooks/index.js'
import { Session } from '../../src/session/index.js'
import { fc } from '../support/property.js'

describe('truncateUtf8', () => {
  it('keeps short text and bounds long text in bytes without splitting characters', () => {
    expect(truncateUtf8('short', 10)).toBe('short')
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 3000 }),
        fc.integer({ min: 40, max: 4096 }),
        (text, max) => {
          const cut = truncateUtf8(text, max)
          expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(max)
          if (Buffer.byteLength(text) <= max) expect(cut).toBe(text)
          expect(cut.includes('\uFFFD') && !text.includes('\uFFFD')).toBe(false)
        },
      ),
    )
  })
})

describe('hook records', () => {
  it('logs hook/invoked then hook/result with a bounded stderr summary', () => {
    const session = new Session({ version: 1, id: 's', createdAt: 0, delegationDepth: 0 })
    const info = {
      dialect: 'claude-code' as const,
      event: 'PreToolUse' as const,
      command: 'guard.sh',
      matcher: 'Bash',
    }
    const record = sessionSink(session)
    record(hookInvokedRecord(info))
    const stderr = 'é'.repeat(100_000)
    record(
      hookResultRecord(
        info,
        { exitCode: 2, stdout: '', stderr, timedOut: false, killed: false, durationMs: 12.4 },
        { decision: 'block', reason: stderr, context: [], warnings: [] },
      ),
    )
    expect(session.events.map((event) => event.type)).toEqual(['hook/invoked', 'hook/result'])
    expect(session.events[0]!.data).toEqual(info)
    const result = session.events[1]!.data as Record<string, unknown>
    expect(result).toMatchObject({ decision: 'block', exitCode: 2, durationMs: 12, command: 'guard.sh' })
    expect(Buffer.byteLength(result.stderr as string)).toBeLessThanOrEqual(MAX_STDERR_SUMMARY_BYTES)
    expect(Buffer.byteLength(result.reason as string)).toBeLessThanOrEqual(MAX_STDERR_SUMMARY_BYTES)
  })
})
