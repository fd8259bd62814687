// The chat's line editor in a real terminal: Backspace and the arrow keys act on whole
// characters as the user sees them (emoji, ZWJ families), so the model gets the text shown.

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, makeWorld } from '../cli/cli.js'
import { useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-editor-')
const startChat = useChatTerminals()
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

it('Backspace after a ZWJ emoji and Left over an emoji keep them whole: the model and the history get intact text', async () => {
  const model = await startModel([{ text: 'Received.' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  const t = await startChat(w)
  t.type('ab😀cd👨‍👩‍👧')
  t.keys('BSpace', 'Left', 'Left', 'Left')
  t.type('X')
  t.keys('Enter')
  await t.waitFor('Received.')
  const sent = model.requests[0]!.messages.filter((message) => message.role === 'user')
  expect(sent.map((message) => message.content)).toEqual(['abX😀cd'])
  const folder = join(w.home, 'history')
  const saved = readdirSync(folder).flatMap((name) =>
    readFileSync(join(folder, name), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
  )
  expect(saved).toEqual(['abX😀cd'])
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
})
