// The approval question's third answer: what the user types goes back to the model as typed,
// Backspace taking whole characters (an emoji, not half of one).

import { expect, it } from 'vitest'
import { ChatQuestions } from '../../../src/apps/chat/questions.js'
import { colorsFor } from '../../../src/apps/shared/render.js'
import type { ToolCallInfo } from '../../../src/plugin-api/index.js'

const plain = colorsFor({ isTTY: false } as NodeJS.WriteStream)

it('3, then typing: Backspace drops a whole emoji from the text the model gets', async () => {
  const questions = new ChatQuestions({
    colors: plain,
    say: () => {},
    schedule: () => {},
    allowAlways: () => '',
    interrupt: () => {},
  })
  const call = {
    name: 'bash',
    input: { command: 'rm -rf build' },
    arguments: '{"command":"rm -rf build"}',
    callId: 'c1',
    turn: 1,
    signal: new AbortController().signal,
  } as unknown as ToolCallInfo
  const answer = questions.askApproval(call, 'Bash needs approval')
  questions.key({ sequence: '3' })
  questions.key({ sequence: 'keep it 👨‍👩‍👧' })
  questions.key({ name: 'backspace' })
  questions.key({ name: 'return' })
  expect(await answer).toEqual({ feedback: 'keep it' })
})
