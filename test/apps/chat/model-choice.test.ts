// `/model` and `/effort` as the chat applies them (changeModelChoice): the next request
// of the live agent carries the new model and effort on the wire, and request/config logs them.

import { describe, expect, it } from 'vitest'
import { changeModelChoice } from '../../../src/apps/chat/model-choice.js'
import type { SessionEventMap } from '../../../src/session/index.js'
import { useTestHarnesses } from '../../support/harness.js'

const start = useTestHarnesses()

describe('/model and /effort', () => {
  it('change the model and effort of the next request; a bad effort is one user-facing line', async () => {
    const test = await start({
      script: [{ reasoning: 'First.', text: 'one' }, { text: 'two' }, { reasoning: 'Third.', text: 'three' }],
    })
    const agent = await test.harness.agents.create({ sessionId: 'choices' })
    const plan = { model: {}, config: test.harness.config }
    expect(changeModelChoice(agent, plan, 'model', '')).toBe('model deepseek-flash')
    expect(changeModelChoice(agent, plan, 'effort', '')).toBe('effort high')
    expect((await agent.prompt('first')).reason).toBe('completed')

    expect(changeModelChoice(agent, plan, 'model', 'deepseek-v4-pro')).toBe(
      'model deepseek-v4-pro from the next turn on',
    )
    expect(changeModelChoice(agent, plan, 'effort', 'off')).toBe('effort off from the next turn on')
    expect((await agent.prompt('second')).reason).toBe('completed')

    expect(changeModelChoice(agent, plan, 'effort', 'max')).toBe('effort max from the next turn on')
    expect((await agent.prompt('third')).reason).toBe('completed')
    expect(() => changeModelChoice(agent, plan, 'effort', 'extreme')).toThrow(
      '/effort: unknown effort "extreme" (use one of off, low, high, max)',
    )

    const [first, second, third] = test.model.requests
    expect(first).toMatchObject({
      model: 'deepseek-flash',
      thinking: { type: 'enabled' },
      reasoning_effort: 'high',
    })
    expect(second).toMatchObject({ model: 'deepseek-v4-pro', thinking: { type: 'disabled' } })
    expect(second!.reasoning_effort).toBeUndefined()
    expect(third).toMatchObject({
      model: 'deepseek-v4-pro',
      thinking: { type: 'enabled' },
      reasoning_effort: 'max',
    })
    const logged = agent.session.events
      .filter((event) => event.type === 'request/config')
      .map((event) => {
        const data = event.data as SessionEventMap['request/config']
        return [data.model, data.effort]
      })
    expect(logged).toEqual([
      ['deepseek-flash', 'high'],
      ['deepseek-v4-pro', 'off'],
      ['deepseek-v4-pro', 'max'],
    ])
    expect(plan.model).toEqual({ model: 'deepseek-v4-pro', effort: 'max' })
  })
})
