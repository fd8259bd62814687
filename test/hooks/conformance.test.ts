// The conformance suite: hook scripts written the way Claude Code users publish them
// (test/hooks/conformance/), installed in a project's .claude/ folder, run through full
// turns against the loopback model. Asserts what ran and what the model saw. Needs
// python3 and jq on PATH (.ci/run installs jq); without them these tests fail.

import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SessionEventMap } from '../../src/session/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-hooks-conformance-')
const start = useTestHarnesses()
const SCRIPTS = join(import.meta.dirname, 'conformance')

const bash = (command: string) => ({ name: 'bash', arguments: { command } })

/** A git project with the published scripts in .claude/hooks and a settings.json using them. */
function projectWithHooks(): string {
  const root = join(tempDir(), 'project')
  mkdirSync(join(root, '.git'), { recursive: true })
  mkdirSync(join(root, '.claude', 'hooks'), { recursive: true })
  for (const file of readdirSync(SCRIPTS)) {
    const target = join(root, '.claude', 'hooks', file)
    copyFileSync(join(SCRIPTS, file), target)
    chmodSync(target, statSync(join(SCRIPTS, file)).mode)
  }
  const hook = (file: string) => `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${file}`
  const settings = {
    hooks: {
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [{ type: 'command', command: `python3 ${hook('bash_command_validator.py')}` }],
        },
        {
          matcher: 'Bash',
          hooks: [
            {
              type: 'command',
              command: 'node',
              args: [join(root, '.claude/hooks/guard.mjs'), '--deny', 'curl'],
            },
          ],
        },
        {
          matcher: 'Bash',
          hooks: [{ type: 'command', if: 'Bash(git push *)', command: hook('push_guard.sh') }],
        },
        { matcher: 'Bash', hooks: [{ type: 'command', command: hook('rewrite_npm.py'), timeout: 30 }] },
      ],
      Stop: [
        {
          hooks: [
            { type: 'command', command: hook('stop_loop.sh') },
            { type: 'command', command: hook('notify_on_stop.py') },
          ],
        },
      ],
    },
  }
  writeFileSync(join(root, '.claude', 'settings.json'), JSON.stringify(settings, null, 2))
  return root
}

describe('published hook scripts, unchanged', () => {
  it('guards, an exec-form guard, an if-filtered guard, a rewriter, a jq Stop loop and a notifier, through full turns', async () => {
    const root = projectWithHooks()
    const t = await start({
      trust: { frontEnd: 'headless', granted: true },
      script: [
        { toolCalls: [bash('grep -r TODO .')] },
        { toolCalls: [bash('curl -s http://127.0.0.1:9/')] },
        { toolCalls: [bash('git push origin main'), bash('touch ok-file')] },
        { toolCalls: [bash('npm install --help')] },
        { text: 'first pass' },
        { text: 'still working' },
        { text: 'all DONE' },
      ],
    })
    const agent = await t.harness.agents.create({ sessionId: 'conformance', meta: { cwd: root } })
    const result = await agent.prompt('work through the backlog')
    expect(result).toMatchObject({ reason: 'completed', text: 'all DONE' })

    const requests = t.model.requests.map((request) => JSON.stringify(request))
    // The Python validator (exit 2): the model sees its stderr.
    expect(requests[1]).toContain("Use 'rg' (ripgrep) instead of 'grep'")
    // The exec-form Node guard's JSON deny.
    expect(requests[2]).toContain('curl is not allowed in this project')
    // The if-filtered guard ran for git push only; touch ran.
    expect(requests[3]).toContain('git push is blocked: open a pull request instead')
    expect(existsSync(join(root, 'ok-file'))).toBe(true)
    // The rewriter's updatedInput: npm ci ran instead of npm install.
    expect(requests[4]).toContain('Clean install a project')

    const results = agent.session.events
      .filter((event) => event.type === 'hook/result')
      .map((event) => event.data as SessionEventMap['hook/result'])
    expect(results.filter((r) => r.command.endsWith('push_guard.sh'))).toHaveLength(1)
    expect(results.filter((r) => r.event === 'Stop' && r.command.endsWith('stop_loop.sh'))).toHaveLength(3)

    // The jq Stop loop read each final answer from the transcript, blocked twice, then let go.
    const seen = readFileSync(join(root, '.claude', 'loop.local.md.seen'), 'utf8')
      .trim()
      .split('\n')
    expect(seen).toEqual(['first pass', 'still working', 'all DONE'])
    expect(existsSync(join(root, '.claude', 'loop.local.md'))).toBe(false)
    expect(requests[5]).toContain('Iteration 1: not done yet')
    expect(requests[6]).toContain('Iteration 2: not done yet')
    // The notifier showed the last answer each time, not a generic text.
    const notes = readFileSync(join(root, '.claude', 'notifications.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { body: string; session: string })
    expect(notes.map((note) => note.body)).toEqual(['first pass', 'still working', 'all DONE'])
    expect(notes.every((note) => note.session === 'conformance')).toBe(true)
  }, 180_000)

  it('the documented one-line transcript reader finds the last answer (jq and Python)', async () => {
    const root = join(tempDir(), 'p')
    mkdirSync(root)
    const t = await start({ script: [{ toolCalls: [bash('echo hi')] }, { text: 'the final answer' }] })
    const agent = await t.harness.agents.create({ sessionId: 'reader', meta: { cwd: root } })
    await agent.prompt('go')
    const path = t.harness.ctx.get('sessionPersistence')!.locate(agent.session.header)!.path
    const { execFileSync } = await import('node:child_process')
    const viaJq = execFileSync('bash', [
      '-c',
      `grep '"role":"assistant"' "$1" | tail -1 | jq -r '.message.content[] | select(.type=="text") | .text'`,
      'reader',
      path,
    ]).toString()
    expect(viaJq).toBe('the final answer\n')
    const viaPython = execFileSync('python3', [
      '-c',
      [
        'import json, sys',
        'last = None',
        'for line in open(sys.argv[1]):',
        '    m = json.loads(line).get("message")',
        '    if m and m["role"] == "assistant":',
        '        last = m',
        'print("".join(c["text"] for c in last["content"] if c["type"] == "text"))',
      ].join('\n'),
      path,
    ]).toString()
    expect(viaPython).toBe('the final answer\n')
    // Tool calls and results are there too, in the same shape.
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines.find((line) => line.type === 'tool/call').message.content[0]).toMatchObject({
      type: 'tool_use',
      input: { command: 'echo hi' },
    })
    expect(lines.find((line) => line.type === 'tool/result').message.content[0]).toMatchObject({
      type: 'tool_result',
      is_error: false,
    })
  })
})
