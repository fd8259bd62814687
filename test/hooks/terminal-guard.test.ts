// A Bash guard written for Claude Code or Codex sees the commands the terminal tools run:
// `terminal_start` and a line sent to a shell go to PreToolUse hooks a second time, as the
// Bash call they amount to. Before, `terminal_start {"command":"rm victim.txt"}` ran past a
// guard that had just refused the same command through bash.

import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { describe, expect } from 'vitest'
import type { SessionEventMap } from '../../src/session/index.js'
import { findExecutable } from '../../src/shell/index.js'
import { SpillStore } from '../../src/spill/index.js'
import { TerminalService } from '../../src/terminal/index.js'
import { TerminalToolsPlugin } from '../../src/tools/terminal/index.js'
import { itRequires } from '../support/requires.js'
import { useTempDirs } from '../support/temp-dir.js'
import { type DialectLabel, oneHook, type Rig, useRigs, writeScript } from './rig.js'

const tempDir = useTempDirs('dsh-hooks-terminal-')
const rig = useRigs()

/** The guard as people publish it: jq reads the command, `rm` is refused with exit 2. */
const RM_GUARD = [
  `cmd=$(jq -r '.tool_input.command')`,
  `if echo "$cmd" | grep -q 'rm '; then echo 'Blocked: rm not allowed' >&2; exit 2; fi`,
  'exit 0',
].join('\n')

async function terminals(root: Context, home: string) {
  for (const fiber of [
    root.plugin(SpillStore, { home }),
    root.plugin(TerminalService, { killGraceMs: 500 }),
    root.plugin(TerminalToolsPlugin, { settleMs: 150 }),
  ])
    await fiber.await()
}

function toolResults(r: Rig, id: string): string[] {
  return r.agents
    .get(id)!
    .session.events.filter((event) => event.type === 'tool/result')
    .map((event) => (event.data as SessionEventMap['tool/result']).content)
}

const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: args }] })

describe('a PreToolUse guard on Bash', () => {
  for (const dialect of ['claude-code', 'codex'] as DialectLabel[]) {
    itRequires(findExecutable('jq') !== undefined, 'jq')(
      `refuses what terminal_start and terminal_send would run (${dialect})`,
      async () => {
        const dir = tempDir()
        const guard = writeScript(dir, 'guard.sh', RM_GUARD)
        const r = await rig({
          dialect,
          dir,
          hooks: oneHook('PreToolUse', guard, { matcher: dialect === 'codex' ? '^Bash$' : 'Bash' }),
          beforeBridge: (root) => terminals(root, dir),
          script: [
            call('terminal_start', { command: 'rm victim.txt; echo gone' }),
            call('terminal_start', { command: 'bash --norc --noprofile', ready: '[$#] $' }),
            call('terminal_send', { id: 't1', text: 'rm victim.txt\n' }),
            call('terminal_send', { id: 't1', text: 'echo fine\n' }),
            { text: 'done' },
          ],
        })
        const victim = join(r.cwd, 'victim.txt')
        writeFileSync(victim, 'keep me\n')
        const agent = await r.agents.create({ sessionId: `guard-${dialect}`, meta: { cwd: r.cwd } })
        await agent.prompt('go')
        const [start, shell, send, fine] = toolResults(r, `guard-${dialect}`)
        expect(start).toContain('Blocked: rm not allowed')
        expect(shell).toMatch(/^started terminal t1/)
        expect(send).toContain('Blocked: rm not allowed')
        expect(fine).toMatch(/^sent "echo fine\\n" to t1/)
        expect(existsSync(victim)).toBe(true)
      },
    )
  }
})
