// The trust question of a project's .mcp.json in the interactive chat, on a real
// pseudo-terminal (tmux) against a loopback model and dsh's fixture MCP server: asked
// once as the chat opens; yes loads the server's tools and is remembered; no loads nothing.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import type { ScriptRequest } from '../../../src/llm/index.js'
import { type LoopbackModel, useLoopbackModels } from '../../support/loopback-model.js'
import { FIXTURE_SERVER } from '../../support/mcp-servers.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, type CliWorld, makeWorld } from '../cli/cli.js'
import { useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-mcp-tmux-')
const startChat = useChatTerminals()
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

/** Makes the world's project a project (`.git`) whose `.mcp.json` names the fixture server `proj`. */
function projectWithServer(w: CliWorld): { file: string; mark: string } {
  mkdirSync(join(w.project, '.git'))
  const file = join(w.project, '.mcp.json')
  // The fixture writes `pid <n>` to $FIXTURE_MARK once it runs: proof it was (or was not) started.
  const mark = join(w.home, 'proj-started')
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { proj: { command: 'node', args: [FIXTURE_SERVER], env: { FIXTURE_MARK: mark } } },
    }),
  )
  return { file, mark }
}

const offered = (model: LoopbackModel, index: number) =>
  (model.requests[index]!.tools ?? []).map((tool) => tool.function.name)
const lastToolResult = (request: ScriptRequest) =>
  [...request.messages].reverse().find((message) => message.role === 'tool')?.content ?? ''

it("asks once whether a project's .mcp.json may load; yes gives the model its tools and is remembered", async () => {
  const model = await startModel([
    { toolCalls: [{ name: 'mcp__proj__echo', arguments: { text: 'from a trusted folder' } }] },
    (request) => ({ text: `The project server answered: ${lastToolResult(request)}` }),
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  const { file, mark } = projectWithServer(w)
  const t = await startChat(w)
  // Asked as the chat opens, naming what the folder brings; nothing started before the answer.
  const question = await t.waitFor('trust this folder? [y/N]')
  expect(question).toContain(`? ${w.project} brings its own configuration:`)
  expect(question).toContain('MCP server proj')
  expect(existsSync(mark)).toBe(false)
  t.keys('y')
  await t.waitFor(`? trust ${w.project} — trusted (remembered)`)

  t.type('use the project tool')
  t.keys('Enter')
  await t.waitFor('The project server answered: echo: from a trusted folder')
  expect(offered(model, 0)).toContain('mcp__proj__echo')
  t.type('/mcp')
  t.keys('Enter')
  await t.waitFor(`proj  connected · 6 tools · project ${file}`)
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
  t.kill()

  // A second chat in the same folder does not ask again: the yes is in $DSH_HOME.
  const again = await startChat(w)
  again.type('/mcp')
  again.keys('Enter')
  await again.waitFor(`proj  connected · 6 tools · project ${file}`)
  expect(again.screen()).not.toContain('trust this folder?')
  again.keys('C-d')
  await again.waitFor('dsh-exit=0')
})

it('a no keeps the project servers unloaded and says so; /mcp lists them as not loaded', async () => {
  const model = await startModel([{ text: 'Answered without project tools.' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  const { file, mark } = projectWithServer(w)
  const t = await startChat(w)
  await t.waitFor('trust this folder? [y/N]')
  t.keys('n')
  await t.waitFor(`? trust ${w.project} — not trusted`)
  await t.waitFor(`project ${w.project}: not trusted (you said no); not loaded: MCP server proj`)
  t.type('/mcp')
  t.keys('Enter')
  await t.waitFor(`proj  not loaded: folder not trusted · project ${file}`)
  t.type('hello')
  t.keys('Enter')
  await t.waitFor('Answered without project tools.')
  expect(offered(model, 0).some((name) => name.startsWith('mcp__'))).toBe(false)
  // The answer left the screen whole: no part of the question stayed behind.
  expect(t.screen()).not.toContain('brings its own configuration')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
  t.kill()
  expect(existsSync(mark)).toBe(false)

  // A no is not remembered: the next chat asks again.
  const again = await startChat(w)
  await again.waitFor('trust this folder? [y/N]')
  again.keys('n')
  await again.waitFor('— not trusted')
  again.keys('C-d')
  await again.waitFor('dsh-exit=0')
  expect(existsSync(mark)).toBe(false)
})
