// The chat's prompt history (`$DSH_HOME/history/`) keeps a prompt only once its turn was not
// blocked: a prompt a UserPromptSubmit hook stopped (a secret scanner) never reaches the disk,
// while the next clean prompt does.

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, makeWorld } from '../cli/cli.js'
import { projectHooks } from '../cli/project-hooks.js'
import { useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-history-blocked-')
const startChat = useChatTerminals()
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

const SECRET = 'AKIAZZ7SECRET0EXAMPLE'

/** Every file's text under `dir`. */
function allText(dir: string): string {
  let text = ''
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    text += statSync(path).isDirectory() ? allText(path) : readFileSync(path, 'latin1')
  }
  return text
}

it('a prompt a hook blocked stays out of the history file; the next clean prompt is kept', async () => {
  const model = await startModel([{ text: 'Clean answer.' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  projectHooks(
    w.project,
    {
      UserPromptSubmit: [
        { hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/scan.sh' }] },
      ],
    },
    {
      'scan.sh': `#!/bin/bash\nif grep -q 'AKIA[0-9A-Z]\\{16\\}'; then echo 'an AWS access key in the prompt' >&2; exit 2; fi\nexit 0\n`,
    },
  )
  const t = await startChat(w, ['--trust-project'])
  t.type(`deploy with ${SECRET} please`)
  t.keys('Enter')
  await t.waitFor('an AWS access key in the prompt')
  t.type('a clean prompt')
  t.keys('Enter')
  await t.waitFor('Clean answer.')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')

  expect(model.requests).toHaveLength(1)
  const historyDir = join(w.home, 'history')
  const lines = readdirSync(historyDir).flatMap((name) =>
    readFileSync(join(historyDir, name), 'utf8').trim().split('\n'),
  )
  expect(lines).toEqual([JSON.stringify('a clean prompt')])
  expect(allText(w.home)).not.toContain(SECRET)
})
