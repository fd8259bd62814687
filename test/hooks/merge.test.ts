import { describe, expect, it } from 'vitest'
import { type HookDecision, type HookOutcome, mergeOutcomes } from '../../src/hooks/index.js'
import { fc } from '../support/property.js'

function outcome(decision: HookDecision, reason?: string, context: string[] = []): HookOutcome {
  return { decision, ...(reason !== undefined ? { reason } : {}), context, warnings: [] }
}

describe('mergeOutcomes', () => {
  it('deny beats ask beats allow, with the reasons of the winning rank', () => {
    const merged = mergeOutcomes([
      outcome('allow', 'fine'),
      outcome('ask', 'check'),
      outcome('deny', 'first no'),
      outcome('block', 'second no'),
    ])
    expect(merged.decision).toBe('deny')
    expect(merged.reason).toBe('first no\nsecond no')
  })

  it('ask beats allow', () => {
    expect(mergeOutcomes([outcome('allow', 'a'), outcome('ask', 'b')])).toMatchObject({
      decision: 'ask',
      reason: 'b',
    })
  })

  it('errors and silent hooks decide nothing', () => {
    expect(mergeOutcomes([outcome('error', 'broken'), outcome('none')])).toMatchObject({ decision: 'none' })
    expect(mergeOutcomes([]).decision).toBe('none')
    expect(mergeOutcomes([]).reason).toBeUndefined()
  })

  it('keeps every context in run order', () => {
    const merged = mergeOutcomes([outcome('none', undefined, ['a', 'b']), outcome('deny', 'x', ['c'])])
    expect(merged.context).toEqual(['a', 'b', 'c'])
  })

  it('collects continue:false reasons', () => {
    const merged = mergeOutcomes([
      { ...outcome('none'), stop: { reason: 'one' } },
      { ...outcome('none'), stop: { reason: '' } },
    ])
    expect(merged.stop).toEqual({ reason: 'one' })
  })

  it('is the maximum rank whatever the order', () => {
    const rank = { none: 0, error: 0, allow: 1, ask: 2, deny: 3, block: 3 } as const
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<HookDecision>('allow', 'deny', 'ask', 'block', 'none', 'error')),
        (decisions) => {
          const merged = mergeOutcomes(decisions.map((decision) => outcome(decision)))
          const top = Math.max(0, ...decisions.map((decision) => rank[decision]))
          expect(merged.decision).toBe(['none', 'allow', 'ask', 'deny'][top])
        },
      ),
    )
  })
})
