// Terminals in the full agent loop (keyless: the loopback model over real HTTP): a dev
// server started with a ready pattern and curled in the same turn, permission rules on
// started commands and on lines sent to a shell, hooks that see the terminal tools' names,
// and the same environment as bash (managed DSH_* variables, credentials scrubbed).

import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ScriptRequest, ScriptStep } from '../../src/llm/index.js'
import { parseEnvLines } from '../shell/support.js'
import { useLoopbackModels } from '../support/loopback-model.js'
import { useTempDirs } from '../support/temp-dir.js'
import {
  toolCall as call,
  toolResults as results,
  screenOf,
  startTerminalLoop,
  type TerminalTestContext,
} from './support.js'

const tempDir = useTempDirs()
const startModel = useLoopbackModels()
const open: TerminalTestContext[] = []
afterEach(async () => {
  while (open.length > 0) await open.pop()!.dispose()
})

const SECRET = 'TERMINAL_TEST_API_KEY'
const STALE = 'DSH_STALE_SENTINEL'
const saved: Record<string, string | undefined> = {}
beforeEach(() => {
  for (const [name, value] of [
    [SECRET, 'sk-must-not-leak'],
    [STALE, 'from-an-outer-harness'],
  ] as const) {
    saved[name] = process.env[name]
    process.env[name] = value
  }
})
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

const lastTool = (request: ScriptRequest) => request.messages.at(-1)?.content ?? ''

async function start(
  script: ScriptStep[],
  options: { deny?: string[]; hooks?: Record<string, unknown> } = {},
) {
  const model = await startModel(script, { apiKey: 'k', strict: true })
  const loop = await startTerminalLoop({ model, home: tempDir(), cwd: tempDir(), ...options })
  open.push(loop.test)
  return { ...loop, model }
}

const SERVER = `setTimeout(() => require('http').createServer((q, s) => s.end('hello from dev')).listen(0, '127.0.0.1', function () { console.log('Local: http://127.0.0.1:' + this.address().port + '/') }), 300)`

describe('terminals in the agent loop', () => {
  it('starts a dev server with a ready pattern and curls it in the same turn', async () => {
    const { agent } = await start([
      call('terminal_start', { command: `node -e "${SERVER}"`, ready: 'Local: http://' }),
      (request) => {
        const url = /Local: (http:\/\/\S+)/.exec(lastTool(request))![1]!
        return call('bash', { command: `curl -s ${url}` })
      },
      (request) => ({ text: lastTool(request) }),
    ])
    const result = await agent.prompt('start the dev server, then curl it')
    expect(result.reason).toBe('completed')
    expect(results(agent)[0]).toMatch(/^started terminal t1 \(ready\)/)
    expect(result.text).toBe('hello from dev')
    // The server outlives the turn.
    expect(agent.session.events.some((event) => event.type === 'tool/result')).toBe(true)
  })

  it('denies a started command and a line sent to a shell by a Bash deny rule; other lines run', async () => {
    const { agent } = await start(
      [
        call('terminal_start', { command: 'rm -rf victim' }),
        call('terminal_start', { command: 'bash --norc --noprofile -i', ready: '[$#] $' }),
        call('terminal_send', { id: 't1', text: 'rm -rf victim\n' }),
        call('terminal_send', { id: 't1', text: 'rm -rf victim' }),
        call('terminal_send', { id: 't1', keys: ['Enter'] }),
        call('terminal_send', { id: 't1', keys: ['Ctrl-U'] }),
        call('terminal_send', { id: 't1', text: 'touch made-it\n' }),
        call('terminal_read', { id: 't1', wait_for: '[$#] $' }),
        { text: 'done' },
      ],
      { deny: ['Bash(rm *)'] },
    )
    writeFileSync(join(agent.cwd, 'victim'), 'keep me')
    await agent.prompt('try it')
    const [direct, , sent, typed, entered] = results(agent)
    expect(direct).toMatch(/^Tool call denied: denied by the permission rule Bash\(rm \*\)/)
    expect(sent).toMatch(/^Tool call denied: denied by the permission rule Bash\(rm \*\)/)
    // Typing without Enter runs nothing; the Enter that would run it is denied.
    expect(typed).toMatch(/^sent "rm -rf victim"/)
    expect(entered).toMatch(/^Tool call denied/)
    expect(readFileSync(join(agent.cwd, 'victim'), 'utf8')).toBe('keep me')
    expect(existsSync(join(agent.cwd, 'made-it'))).toBe(true)
  })

  it('runs PreToolUse and PostToolUse hooks that see the terminal tools by name', async () => {
    const dir = tempDir()
    const log = join(dir, 'hooks.log')
    const record = `jq -r '.hook_event_name + " " + .tool_name' >> ${log}`
    const blockKill = `jq -e '.tool_input.id == "t9"' >/dev/null && { echo 'no t9 please' >&2; exit 2; } || exit 0`
    const { agent } = await start(
      [call('terminal_start', { command: 'cat' }), call('terminal_kill', { id: 't9' }), { text: 'done' }],
      {
        hooks: {
          PreToolUse: [
            { matcher: 'terminal_.*', hooks: [{ type: 'command', command: record }] },
            { matcher: 'terminal_kill', hooks: [{ type: 'command', command: blockKill }] },
          ],
          PostToolUse: [{ matcher: 'terminal_start', hooks: [{ type: 'command', command: record }] }],
        },
      },
    )
    await agent.prompt('go')
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([
      'PreToolUse terminal_start',
      'PostToolUse terminal_start',
      'PreToolUse terminal_kill',
    ])
    expect(results(agent)[1]).toContain('no t9 please')
  })
})

describe('the terminal environment', () => {
  it('has the managed DSH_* snapshot and no credentials or stale managed variables', async () => {
    const { test, agent } = await start([])
    await test.call(agent, 'terminal_start', {
      command: 'bash --norc --noprofile -i',
      ready: '[$#] $',
      rows: 50,
    })
    const probe = `for v in DSH_HOME DSH_SHELL DSH_SESSION_ID DSH_SESSION_JSONL ${STALE} ${SECRET} TERM; do printf '%s=%s\\n' "$v" "\${!v-<unset>}"; done; echo probe-done`
    await test.call(agent, 'terminal_send', { id: 't1', text: `${probe}\n` })
    const screen = screenOf(await test.call(agent, 'terminal_read', { id: 't1', wait_for: '^probe-done' }))
    const seen = parseEnvLines(screen)
    expect(seen).toMatchObject({
      DSH_HOME: test.home,
      DSH_SHELL: test.ctx.get('shell')!.shellPath,
      DSH_SESSION_ID: agent.session.header.id,
      DSH_SESSION_JSONL: test.ctx.get('sessionPersistence')!.locate(agent.session.header)!.path,
      [STALE]: '<unset>',
      [SECRET]: '<unset>',
      TERM: 'xterm-256color',
    })
  })
})
