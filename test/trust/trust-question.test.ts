// The one trust question a folder gets names everything the folder brings — hooks, allow
// rules, skills, commands and .mcp.json servers — whichever subsystem happens to ask first.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { useTestHarnesses } from '../support/harness.js'
import { FIXTURE_SERVER, SERVER_TEST_TIMEOUT_MS } from '../support/mcp-servers.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs()

interface Brings {
  hooks?: boolean
  allowRule?: boolean
  skill?: boolean
  command?: boolean
  mcp?: boolean
}

function makeProject(brings: Brings): string {
  const root = tempDir()
  mkdirSync(join(root, '.git'))
  mkdirSync(join(root, '.claude'))
  const settings: Record<string, unknown> = {}
  if (brings.hooks) settings.hooks = { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'true' }] }] }
  if (brings.allowRule) settings.permissions = { allow: ['Bash(make:*)'] }
  writeFileSync(join(root, '.claude', 'settings.json'), JSON.stringify(settings))
  if (brings.skill) {
    mkdirSync(join(root, '.claude', 'skills', 'deploy'), { recursive: true })
    writeFileSync(
      join(root, '.claude', 'skills', 'deploy', 'SKILL.md'),
      '---\nname: deploy\ndescription: ships it\n---\nRun the deploy script.\n',
    )
  }
  if (brings.command) {
    mkdirSync(join(root, '.claude', 'commands'), { recursive: true })
    writeFileSync(join(root, '.claude', 'commands', 'review.md'), 'Review $ARGUMENTS\n')
  }
  if (brings.mcp) {
    writeFileSync(
      join(root, '.mcp.json'),
      JSON.stringify({ mcpServers: { proj: { command: 'node', args: [FIXTURE_SERVER] } } }),
    )
  }
  return root
}

async function questionsFor(root: string): Promise<(readonly string[])[]> {
  const asked: (readonly string[])[] = []
  const { harness } = await start({
    trust: {
      frontEnd: 'interactive',
      ask: async (_folder, brings) => {
        asked.push(brings)
        return false
      },
    },
    script: [{ text: 'ok' }],
  })
  const agent = await harness.agents.create({ sessionId: 'asked', meta: { cwd: root } })
  await agent.prompt('hi')
  return asked
}

it(
  'one question names hooks, allow rules, skills, commands and MCP servers together',
  async () => {
    const root = makeProject({ hooks: true, allowRule: true, skill: true, command: true, mcp: true })
    const asked = await questionsFor(root)
    expect(asked).toHaveLength(1)
    expect([...asked[0]!].sort()).toEqual(
      [
        '1 Claude Code hook (.claude/settings.json)',
        '1 permission allow rule',
        '1 skill',
        '1 command',
        'MCP server proj',
      ].sort(),
    )
  },
  SERVER_TEST_TIMEOUT_MS,
)

it('a question asked for the rules names the hooks, and one asked for the hooks names the rules', async () => {
  const hooksAndRules = await questionsFor(makeProject({ hooks: true, allowRule: true }))
  expect(hooksAndRules).toHaveLength(1)
  expect(hooksAndRules[0]).toEqual(
    expect.arrayContaining(['1 Claude Code hook (.claude/settings.json)', '1 permission allow rule']),
  )
  const rulesOnly = await questionsFor(makeProject({ allowRule: true, skill: true }))
  expect(rulesOnly).toEqual([['1 permission allow rule', '1 skill']])
})
