// The stdio server's one running request: held from acceptance until it settles, refused a
// second time meanwhile, and aborted through the signal it was started with.

import { expect, it } from 'vitest'
import { StdioErrorCode } from '../../../src/apps/stdio/errors.js'
import { RunningRequest } from '../../../src/apps/stdio/running.js'

it('holds one request until it settles, refuses a second meanwhile, and aborts it through its signal', async () => {
  const running = new RunningRequest()
  await running.settled()
  let finish!: () => void
  let seen: AbortSignal | undefined
  const response = running.start('a turn', async (signal) => {
    seen = signal
    await new Promise<void>((resolve) => {
      finish = resolve
    })
    return signal.aborted ? 'aborted' : 'completed'
  })
  expect(running.active).toBe(true)
  expect(() => running.start('a turn', async () => 'second')).toThrow(
    expect.objectContaining({ code: StdioErrorCode.TurnRunning }),
  )
  running.abort()
  expect(seen?.aborted).toBe(true)
  finish()
  expect(await response).toBe('aborted')
  await running.settled()
  expect(running.active).toBe(false)
  // A failed request frees the slot too.
  await expect(running.start('a turn', async () => Promise.reject(new Error('bad image')))).rejects.toThrow(
    'bad image',
  )
  await running.settled()
  expect(running.active).toBe(false)
})
