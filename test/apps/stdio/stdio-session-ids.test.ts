// `dsh stdio` initialize with `resume`: a unique id prefix of 6+ characters resumes the
// stored session (its full id answered); ambiguous, short and unknown ones are errors
// with the history codes, and `resume` with `sessionId` is invalid params.

import { describe, expect, it } from 'vitest'
import { useTestHarnesses } from '../../support/harness.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { startStdioClient } from './stdio-client.js'

const start = useTestHarnesses()
const tempHome = useTempDirs('dsh-stdio-ids-')

describe('dsh stdio resume by id prefix', () => {
  it('resumes a unique prefix; refuses ambiguous, short and unknown ones', async () => {
    const { harness } = await start({ home: tempHome(), script: [{ text: 'resumed answer' }] })
    for (const id of ['stdstd-one', 'stdstd-two']) {
      const session = await harness.sessions.create({ id, cwd: harness.config.home })
      session.append('turn/start', { turn: 1 })
      session.append('user/message', { text: `prompt of ${id}` })
      session.append('turn/end', { turn: 1, reason: 'completed' })
      await harness.sessions.close(session)
    }
    const refusals = startStdioClient(harness)
    expect((await refusals.request('initialize', { resume: 'stdstd' })).error).toMatchObject({
      code: -32000,
      message: 'session id prefix "stdstd" is ambiguous: stdstd-one, stdstd-two (give more characters)',
      data: { code: 'HISTORY_AMBIGUOUS_ID' },
    })
    expect((await refusals.request('initialize', { resume: 'stdst' })).error).toMatchObject({
      data: { code: 'PERSISTENCE_NOT_FOUND' },
    })
    expect((await refusals.request('initialize', { resume: 'stdstd-three' })).error).toMatchObject({
      data: { code: 'PERSISTENCE_NOT_FOUND' },
    })
    expect((await refusals.request('initialize', { resume: 'stdstd-o', sessionId: 'x' })).error?.code).toBe(
      -32602,
    )

    const init = await refusals.request('initialize', { resume: 'stdstd-o' })
    expect(init.result).toMatchObject({ sessionId: 'stdstd-one', resumed: true })
    const turn = await refusals.request('session/prompt', { text: 'and now?' })
    expect(turn.result).toMatchObject({ turn: 2, reason: 'completed', text: 'resumed answer' })
    refusals.end()
    await refusals.done
  })
})
