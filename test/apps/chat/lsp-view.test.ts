// `/lsp` in chat: the session's servers with root and state, or that code intelligence is off.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import type { TerminalChat } from '../../../src/apps/chat/chat.js'
import { describeLsp } from '../../../src/apps/chat/lsp-view.js'
import { fakeLspServer } from '../../support/fake-lsp.js'
import { useTestHarnesses } from '../../support/harness.js'
import { useTempDirs } from '../../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-chat-lsp-')

function chatOn(harness: unknown, said: string[]): TerminalChat {
  return {
    harness,
    say: (line: string) => said.push(line),
    colors: { dim: (text: string) => text },
  } as unknown as TerminalChat
}

it('/lsp lists the started servers with their root and state', async () => {
  const dir = tempDir()
  const fake = fakeLspServer(dir, 'normal')
  writeFileSync(join(dir, 'a.fake'), 'ok\n')
  const { harness } = await start({ config: { lsp: { servers: { fake: fake.entry } } } })
  const said: string[] = []
  describeLsp(chatOn(harness, said))
  expect(said).toEqual([
    'No language server started yet (they start when a file of their language is touched).',
  ])
  await harness.ctx.lsp.fileDiagnostics(join(dir, 'a.fake'), dir)
  said.length = 0
  describeLsp(chatOn(harness, said))
  expect(said).toHaveLength(1)
  expect(said[0]).toMatch(new RegExp(`^fake {2}running pid \\d+ {2}${dir}$`))
})

it('/lsp says when code intelligence is off', async () => {
  const { harness } = await start({ config: { lsp: false } })
  const said: string[] = []
  describeLsp(chatOn(harness, said))
  expect(said).toEqual(['code intelligence is off (config lsp: false)'])
})
