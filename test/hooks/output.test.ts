import { describe, expect, it } from 'vitest'
import { type HookRun, interpretHookRun, MAX_HOOK_TEXT_CHARS } from '../../src/hooks/index.js'
import { fc } from '../support/property.js'

function run(partial: Partial<HookRun>): HookRun {
  return { exitCode: 0, stdout: '', stderr: '', timedOut: false, killed: false, durationMs: 1, ...partial }
}

const plain = { plainStdoutIsContext: false }
const asContext = { plainStdoutIsContext: true }

describe('interpretHookRun', () => {
  it('exit 2 blocks with stderr as the reason and ignores stdout', () => {
    const outcome = interpretHookRun(
      run({ exitCode: 2, stderr: 'no rm -rf here\n', stdout: '{"decision":"approve"}' }),
      plain,
    )
    expect(outcome).toMatchObject({ decision: 'block', reason: 'no rm -rf here' })
  })

  it('exit 2 without stderr still blocks', () => {
    expect(interpretHookRun(run({ exitCode: 2 }), plain).decision).toBe('block')
  })

  it('other exit codes are non-blocking errors', () => {
    expect(interpretHookRun(run({ exitCode: 1, stderr: 'oops' }), plain)).toMatchObject({
      decision: 'error',
      reason: 'exited with code 1: oops',
    })
    expect(interpretHookRun(run({ exitCode: null }), plain).decision).toBe('error')
  })

  it('timeouts, kills and runs that never started are errors', () => {
    expect(interpretHookRun(run({ exitCode: null, timedOut: true }), plain).decision).toBe('error')
    expect(interpretHookRun(run({ exitCode: null, killed: true }), plain).decision).toBe('error')
    expect(interpretHookRun(run({ exitCode: null, error: 'no shell' }), plain)).toMatchObject({
      decision: 'error',
      reason: 'no shell',
    })
  })

  it('parses permissionDecision with its reason', () => {
    const stdout = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'nope',
      },
    })
    expect(interpretHookRun(run({ stdout }), plain)).toMatchObject({ decision: 'deny', reason: 'nope' })
  })

  it('prefers permissionDecision over the older decision field', () => {
    const stdout = JSON.stringify({
      decision: 'approve',
      reason: 'old',
      hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'new' },
    })
    expect(interpretHookRun(run({ stdout }), plain)).toMatchObject({ decision: 'ask', reason: 'new' })
  })

  it('maps decision block/approve, continue:false, additionalContext and systemMessage', () => {
    const stdout = JSON.stringify({
      decision: 'block',
      reason: 'fix the tests first',
      continue: false,
      stopReason: 'enough',
      systemMessage: 'for the user',
      hookSpecificOutput: { additionalContext: 'extra facts' },
    })
    expect(interpretHookRun(run({ stdout }), plain)).toEqual({
      decision: 'block',
      reason: 'fix the tests first',
      stop: { reason: 'enough' },
      systemMessage: 'for the user',
      context: ['extra facts'],
      warnings: [],
    })
    expect(interpretHookRun(run({ stdout: '{"decision":"approve"}' }), plain).decision).toBe('allow')
  })

  it('treats plain stdout as context only where the event says so', () => {
    expect(interpretHookRun(run({ stdout: 'today is Tuesday\n' }), asContext).context).toEqual([
      'today is Tuesday',
    ])
    expect(interpretHookRun(run({ stdout: 'today is Tuesday\n' }), plain).context).toEqual([])
  })

  it('malformed JSON is a warning, never a decision', () => {
    const outcome = interpretHookRun(run({ stdout: '{"decision": "block", ' }), asContext)
    expect(outcome.decision).toBe('none')
    expect(outcome.context).toEqual([])
    expect(outcome.warnings).toHaveLength(1)
    expect(outcome.warnings[0]).toContain('malformed JSON')
  })

  it('JSON with wrongly typed fields is a warning', () => {
    const outcome = interpretHookRun(run({ stdout: '{"decision": "maybe"}' }), plain)
    expect(outcome.decision).toBe('none')
    expect(outcome.warnings[0]).toContain('decision')
  })

  it('clips long reasons and contexts', () => {
    const long = 'x'.repeat(MAX_HOOK_TEXT_CHARS * 3)
    const outcome = interpretHookRun(run({ exitCode: 2, stderr: long }), plain)
    expect(outcome.reason!.length).toBeLessThan(MAX_HOOK_TEXT_CHARS + 100)
  })
})

/** The top-level fields the hook output schema knows (src/hooks/protocol/output.ts). */
const KNOWN_FIELDS = [
  'continue',
  'stopReason',
  'suppressOutput',
  'systemMessage',
  'decision',
  'reason',
  'hookSpecificOutput',
]

describe('interpretHookRun properties', () => {
  const anyRun = fc.record({
    exitCode: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 255 })),
    stdout: fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((value) => JSON.stringify(value)),
    ),
    stderr: fc.string(),
    timedOut: fc.boolean(),
    killed: fc.boolean(),
    durationMs: fc.nat(),
  })

  it('never throws and always answers a known decision', () => {
    fc.assert(
      fc.property(anyRun, fc.boolean(), (hookRun, plainStdoutIsContext) => {
        const outcome = interpretHookRun(hookRun, { plainStdoutIsContext })
        expect(['allow', 'deny', 'ask', 'block', 'none', 'error']).toContain(outcome.decision)
        for (const text of outcome.context) expect(typeof text).toBe('string')
      }),
    )
  })

  it('exit 2 always blocks and any other non-zero exit never blocks', () => {
    fc.assert(
      fc.property(anyRun, (hookRun) => {
        const finished = { ...hookRun, timedOut: false, killed: false }
        const outcome = interpretHookRun(finished, plain)
        if (finished.exitCode === 2) expect(outcome.decision).toBe('block')
        else if (finished.exitCode !== 0) expect(outcome.decision).toBe('error')
      }),
    )
  })

  it('a well-formed permission decision is honoured whatever else the object holds', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('allow', 'deny', 'ask'),
        fc.string(),
        fc.dictionary(
          fc.string().filter((key) => !KNOWN_FIELDS.includes(key)),
          fc.jsonValue(),
        ),
        (permissionDecision, reason, extra) => {
          const body = {
            ...extra,
            hookSpecificOutput: { permissionDecision, permissionDecisionReason: reason },
          }
          const outcome = interpretHookRun(run({ stdout: JSON.stringify(body) }), plain)
          // Unknown keys are ignored: no warning, and the decision stands.
          expect(outcome.warnings).toEqual([])
          expect(outcome.decision).toBe(permissionDecision)
        },
      ),
    )
  })

  it('a wrongly typed known field voids the whole output with a warning, whatever the decision', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('allow', 'deny', 'ask'),
        fc.constantFrom(...KNOWN_FIELDS.filter((key) => key !== 'hookSpecificOutput')),
        (permissionDecision, field) => {
          const body = { [field]: { wrongly: 'typed' }, hookSpecificOutput: { permissionDecision } }
          const outcome = interpretHookRun(run({ stdout: JSON.stringify(body) }), plain)
          expect(outcome.decision).toBe('none')
          expect(outcome.warnings).toHaveLength(1)
          expect(outcome.warnings[0]).toContain(field)
        },
      ),
    )
  })
})
