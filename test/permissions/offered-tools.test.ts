// A bare deny rule (`Bash`, `WebFetch`, `mcp__server`) takes the tool out of the list the
// model is offered, as in Claude Code; a call to it anyway is still denied. A rule with a
// specifier (`Bash(rm *)`) leaves the tool offered.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTestHarnesses } from '../support/harness.js'
import type { ReceivedRequest } from '../support/loopback-model.js'
import { FIXTURE_SERVER, SERVER_TEST_TIMEOUT_MS } from '../support/mcp-servers.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-offered-')
const start = useTestHarnesses()

const offered = (request: ReceivedRequest) => (request.tools ?? []).map((tool) => tool.function.name)

function project(settings?: unknown): string {
  const cwd = join(tempDir(), 'proj')
  mkdirSync(join(cwd, '.git'), { recursive: true })
  if (settings !== undefined) {
    mkdirSync(join(cwd, '.claude'))
    writeFileSync(join(cwd, '.claude', 'settings.json'), JSON.stringify(settings))
  }
  return cwd
}

describe('tools denied outright', () => {
  it('--disallowed-tools Bash and WebFetch leave bash and web_fetch out of every request; a call anyway is denied', async () => {
    const cwd = project()
    const { harness, model } = await start({
      permissions: { disallowedTools: ['Bash', 'WebFetch'] },
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo ran > ran.txt' } }] },
        { text: 'done' },
      ],
    })
    const agent = await harness.agents.create({ sessionId: 'bare', meta: { cwd } })
    await agent.prompt('go')
    expect(model.requests).toHaveLength(2)
    for (const request of model.requests) {
      expect(offered(request)).not.toContain('bash')
      expect(offered(request)).not.toContain('web_fetch')
      expect(offered(request)).toContain('read')
      // The terminal tools that start and drive shells go with Bash; the others run nothing.
      expect(offered(request)).not.toContain('terminal_start')
      expect(offered(request)).not.toContain('terminal_send')
      expect(offered(request)).toContain('terminal_list')
    }
    // The same list, in the same order, on every request of the session (a stable prompt prefix).
    expect(offered(model.requests[1]!)).toEqual(offered(model.requests[0]!))
    const result = agent.session.events.find((event) => event.type === 'tool/result')!.data as {
      content: string
    }
    expect(result.content).toContain('denied by the permission rule Bash')
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(false)
  })

  it("dsh's names and the Read family count; a rule with a specifier leaves the tool offered", async () => {
    const cwd = project()
    const { harness, model } = await start({
      permissions: { disallowedTools: ['bash(rm *)', 'Read', 'web_fetch'] },
      script: [{ text: 'done' }],
    })
    await (await harness.agents.create({ sessionId: 'names', meta: { cwd } })).prompt('go')
    const names = offered(model.requests[0]!)
    expect(names).toContain('bash')
    expect(names).not.toContain('web_fetch')
    for (const tool of ['read', 'grep', 'glob', 'ls']) expect(names).not.toContain(tool)
    expect(names).toContain('write')
  })

  it("a bare deny in a project's .claude/settings.json hides the tool from that project's agents only", async () => {
    const denying = project({ permissions: { deny: ['Bash'] } })
    const other = project()
    const { harness, model } = await start({ script: [{ text: 'one' }, { text: 'two' }] })
    await (await harness.agents.create({ sessionId: 'denying', meta: { cwd: denying } })).prompt('go')
    await (await harness.agents.create({ sessionId: 'other', meta: { cwd: other } })).prompt('go')
    expect(offered(model.requests[0]!)).not.toContain('bash')
    expect(offered(model.requests[1]!)).toContain('bash')
  })

  it(
    'a bare mcp__server deny hides the tools that server provides',
    async () => {
      const cwd = project()
      const { harness, model } = await start({
        config: { mcpServers: { fx: { command: 'node', args: [FIXTURE_SERVER] } } },
        permissions: { disallowedTools: ['mcp__fx'] },
        script: [{ text: 'done' }],
      })
      await (await harness.agents.create({ sessionId: 'mcp', meta: { cwd } })).prompt('go')
      expect(offered(model.requests[0]!).filter((name) => name.startsWith('mcp__'))).toEqual([])
      expect(offered(model.requests[0]!)).toContain('bash')
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})
