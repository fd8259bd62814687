// Hooks on the PostgreSQL backend, which keeps no dedicated file per session: Claude Code
// hooks get transcript_path '' and Codex hooks null, and commands see no DSH_SESSION_JSONL.

import { join } from 'node:path'
import { expect, it } from 'vitest'
import { describePostgres, describeSkipReason, useCluster } from '../support/postgres.js'
import { useTempDirs } from '../support/temp-dir.js'
import { oneHook, readRecords, useRigs, writeRecorder } from './rig.js'

const tempDir = useTempDirs('dsh-hooks-pg-')

describePostgres(`hooks on the postgres backend${describeSkipReason()}`, () => {
  const cluster = useCluster()
  const rig = useRigs()

  it.each([
    ['claude-code', ''],
    ['codex', null],
  ] as const)(
    '%s hooks get transcript_path %j and commands no DSH_SESSION_JSONL',
    async (dialect, expected) => {
      const dir = tempDir()
      const out = join(dir, 'runs.jsonl')
      const recorder = writeRecorder(dir, 'rec.sh', out)
      const r = await rig({
        dir,
        dialect,
        backend: 'postgres',
        postgres: { url: cluster.cluster.url, schema: cluster.schema() },
        script: [
          {
            toolCalls: [
              { name: 'bash', arguments: { command: 'echo "jsonl=$' + '{DSH_SESSION_JSONL-unset}"' } },
            ],
          },
          { text: 'done' },
        ],
        hooks: {
          ...oneHook('UserPromptSubmit', recorder),
          ...oneHook('PreToolUse', recorder),
          ...oneHook('Stop', recorder),
        },
      })
      expect(
        r.root.get('sessionPersistence')!.locate({ id: 'x', version: 1, createdAt: 0, delegationDepth: 0 }),
      ).toBeUndefined()
      const agent = await r.agents.create({ sessionId: `pg-${dialect}`, meta: { cwd: r.cwd } })
      expect((await agent.prompt('hello')).reason).toBe('completed')
      const payloads = readRecords(out).map((run) => run.payload)
      expect(payloads).toHaveLength(3)
      for (const payload of payloads)
        expect(payload).toMatchObject({ session_id: `pg-${dialect}`, transcript_path: expected })
      const result = agent.session.events.find((event) => event.type === 'tool/result')!
      expect((result.data as { content: string }).content).toContain('jsonl=unset')
    },
  )
})
