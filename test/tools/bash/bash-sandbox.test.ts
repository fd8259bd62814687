// The sandbox end to end: createHarness with `sandbox: workspace-write`, a real turn against
// the loopback model, the model's bash commands inside real bubblewrap. Permissions are
// bypassed, so only the sandbox stands between a command and the rest of the machine.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import type { AgentHandle } from '../../../src/agent/index.js'
import type { Script } from '../../../src/llm/index.js'
import { encodeSessionId } from '../../../src/persistence/jsonl/layout.js'
import { startShellTestContext } from '../../shell/support.js'
import { useTestHarnesses } from '../../support/harness.js'
import { itRequires } from '../../support/requires.js'
import { useTempDirs } from '../../support/temp-dir.js'

const it = itRequires(existsSync('/usr/bin/bwrap'), 'bubblewrap (/usr/bin/bwrap)')
const tempDir = useTempDirs('dsh-bash-sandbox-')
const startTestHarness = useTestHarnesses()

const bash = (command: string, extra: Record<string, unknown> = {}) => ({
  name: 'bash',
  arguments: { command, ...extra },
})

function toolResults(agent: AgentHandle): string[] {
  return agent.session.events
    .filter((event) => event.type === 'tool/result')
    .map((event) => (event.data as { content: string }).content)
}

async function sandboxedHarness(home: string, script: Script) {
  return startTestHarness({
    home,
    script,
    config: { sandbox: 'workspace-write' },
    permissions: { mode: 'bypassPermissions' },
  })
}

describe('bash under the sandbox, in a real turn', () => {
  it("writes inside the project only, cannot read another session's log, reads its own", async () => {
    const home = tempDir()
    const project = join(tempDir(), 'project')
    const outside = tempDir()
    mkdirSync(join(project, '.git'), { recursive: true })
    let otherLog = ''
    const test = await sandboxedHarness(home, [
      { text: 'the other session, so its log exists' },
      () => ({
        toolCalls: [
          bash('echo inside > inside.txt && cat inside.txt'),
          bash(`echo escaped > ${outside}/outside.txt; echo "exit=$?"`),
          bash(`cat ${otherLog} 2>/dev/null; echo "exit=$?"`),
          bash('head -c 300 "$DSH_SESSION_JSONL"; echo; echo "exit=$?"'),
        ],
      }),
      { text: 'done' },
    ])
    const { agents } = test.harness
    const first = await agents.create({ sessionId: 'other-session', meta: { cwd: project } })
    expect((await first.prompt('hello')).reason).toBe('completed')
    otherLog = test.harness.ctx.get('sessionPersistence')!.locate(first.session.header)!.path
    expect(readFileSync(otherLog, 'utf8')).toContain('other-session')

    const agent = await agents.create({ sessionId: 'sandboxed-session', meta: { cwd: project } })
    expect((await agent.prompt('try things')).reason).toBe('completed')
    const [inside, escaped, otherRead, ownRead] = toolResults(agent)

    expect(inside).toBe('inside')
    expect(readFileSync(join(project, 'inside.txt'), 'utf8')).toBe('inside\n')
    expect(escaped).toMatch(/exit=[1-9]/)
    expect(existsSync(join(outside, 'outside.txt'))).toBe(false)
    expect(otherRead).toMatch(/^exit=[1-9]/)
    expect(ownRead).toContain('"id":"sandboxed-session"')
    expect(ownRead).toContain('exit=0')
  })

  it("a job started by the session's first call sees spill files written after it started", async () => {
    const home = tempDir()
    const project = tempDir()
    const spillDir = join(home, 'spill', encodeSessionId('spill-session'))
    const test = await sandboxedHarness(home, [
      {
        toolCalls: [
          bash(
            `for i in $(seq 100); do ls ${spillDir} 2>/dev/null | grep -q . && { echo seen; ls ${spillDir}; break; }; sleep 0.1; done`,
            { run_in_background: true },
          ),
        ],
      },
      // Past the output limit: the full output is spilled into the session's folder.
      { toolCalls: [bash('seq 1 40000')] },
      { toolCalls: [bash('sleep 0.5')] },
      { toolCalls: [{ name: 'job_output', arguments: { job_id: 'job-1' } }] },
      { text: 'done' },
    ])
    const agent = await test.harness.agents.create({ sessionId: 'spill-session', meta: { cwd: project } })
    expect((await agent.prompt('go')).reason).toBe('completed')
    const results = toolResults(agent)
    expect(results[1]).toContain(spillDir)
    expect(results[3]).toContain('seen')
    expect(results[3]).toMatch(/bash-stdout\.txt/)
  })

  it('the first sandboxed call of a session can list its spill folder and read its log', async () => {
    const home = tempDir()
    const project = tempDir()
    const spillDir = join(home, 'spill', encodeSessionId('fresh-session'))
    const test = await sandboxedHarness(home, [
      { toolCalls: [bash(`ls -ld ${spillDir} >/dev/null && test -r "$DSH_SESSION_JSONL" && echo readable`)] },
      { text: 'done' },
    ])
    writeFileSync(join(project, 'README'), 'x\n')
    const agent = await test.harness.agents.create({ sessionId: 'fresh-session', meta: { cwd: project } })
    expect((await agent.prompt('go')).reason).toBe('completed')
    expect(toolResults(agent)[0]).toBe('readable')
  })

  it('a call outside the loop (no checkpoint before it) flushes the log first, so the command can read it', async () => {
    const home = tempDir()
    const test = await startShellTestContext({
      home,
      backend: 'jsonl',
      executor: { sandbox: { mode: 'workspace-write', network: true, home } },
    })
    try {
      const agent = await test.createAgent('unflushed', tempDir())
      agent.session.append('user/message', { text: 'not yet on disk' })
      const output = await test.runTool('bash', { command: 'cat "$DSH_SESSION_JSONL"' }, agent)
      expect(output.content).toContain('not yet on disk')
    } finally {
      await test.dispose()
    }
  })
})
