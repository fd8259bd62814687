// ACP tool-call status through the real loop: a bash call that timed out (or was
// cancelled or killed) is `failed`, with the reason in its text; a non-zero exit is a
// normal, `completed` result showing its exit code.

import { expect, it } from 'vitest'
import type { AgentOutput } from '../../../src/agent/index.js'
import { outputUpdate } from '../../../src/apps/acp/index.js'
import { useRigs } from '../../hooks/rig.js'
import { useTempDirs } from '../../support/temp-dir.js'

const tempDir = useTempDirs('dsh-acp-status-')
const rig = useRigs('claude-code')

it('reports a timed-out bash call failed with the reason, and a non-zero exit completed', async () => {
  const r = await rig({
    dir: tempDir(),
    script: [
      { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 30', timeout_ms: 200 } }] },
      { toolCalls: [{ name: 'bash', arguments: { command: 'exit 3' } }] },
      { text: 'done' },
    ],
  })
  const agent = await r.agents.create({ sessionId: 'acp-status', meta: { cwd: r.cwd } })
  const ends: AgentOutput[] = []
  agent.onOutput((output) => {
    if (output.type === 'tool-end') ends.push(output)
  })
  expect((await agent.prompt('go')).reason).toBe('completed')
  const updates = ends.map((output) => outputUpdate(1, output, r.cwd) as { status: string; content: unknown })
  expect(updates.map((update) => update.status)).toEqual(['failed', 'completed'])
  expect(JSON.stringify(updates[0]!.content)).toContain('timed out after 200ms')
  expect(JSON.stringify(updates[1]!.content)).toContain('[exit code: 3]')
})
