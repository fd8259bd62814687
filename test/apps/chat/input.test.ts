// The input box's key handling: which keys edit the buffer and which become chat actions.

import { expect, it, vi } from 'vitest'
import { PromptHistory } from '../../../src/apps/chat/history.js'
import { type InputActions, InputBox } from '../../../src/apps/chat/input.js'
import { colorsFor } from '../../../src/apps/shared/render.js'
import { useTempDirs } from '../../support/temp-dir.js'

const makeDir = useTempDirs('dsh-chat-input-')
const plain = colorsFor({ isTTY: false } as NodeJS.WriteStream)

function inputBox() {
  const dir = makeDir()
  const actions: InputActions = {
    submit: vi.fn(),
    interrupt: vi.fn(),
    exit: vi.fn(),
    toggleReasoning: vi.fn(),
    cycleMode: vi.fn(),
    changed: vi.fn(),
    hint: vi.fn(),
  }
  const box = new InputBox(
    new PromptHistory(dir, dir),
    () => ['help', 'hooks'],
    () => dir,
    actions,
    plain,
  )
  return { box, actions }
}

it('Shift-Tab (ESC [ Z, Tab with shift) cycles the permission mode and leaves the input as it was', () => {
  const { box, actions } = inputBox()
  for (const key of '/he') box.key({ name: undefined, sequence: key })
  box.key({ name: 'tab', sequence: '\u001b[Z', shift: true })
  expect(actions.cycleMode).toHaveBeenCalledTimes(1)
  expect(box.buffer.text).toBe('/he')
  // Tab alone still completes.
  box.key({ name: 'tab', sequence: '\t' })
  expect(box.buffer.text).toBe('/help ')
  expect(actions.cycleMode).toHaveBeenCalledTimes(1)
})

it('Backspace in the history search drops a whole emoji from the query', () => {
  const { box } = inputBox()
  box.key({ name: 'r', ctrl: true, sequence: '\u0012' })
  box.key({ sequence: 'a👍🏽' })
  box.key({ name: 'backspace', sequence: '\u007f' })
  expect(box.render().lines[0]).toBe("(reverse-i-search)`a': ")
})
