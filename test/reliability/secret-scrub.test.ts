// The secret-scrub matrix through the real CLI: credential-bearing names and values in
// dsh's environment × every child dsh starts (a bash call, a background job, each hook
// event of both dialects, an MCP server): none of them ever sees a secret, while plain
// variables pass.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { assertBuilt, makeWorld, runCli } from '../apps/cli/cli.js'
import { startLoopbackModel } from '../support/loopback-model.js'
import { FIXTURE_SERVER } from '../support/mcp-servers.js'
import { createTempDir, removeTempDir } from '../support/temp-dir.js'
import { until } from '../support/until.js'
import { reportFigure } from './size.js'

/** Secret by name (the value is plain) or by value (the name is plain). */
const SECRETS: Record<string, string> = {
  AWS_ACCESS_KEY_ID: 'AKIARELIABILITY0001',
  AWS_SECRET_ACCESS_KEY: 'rel-aws-secret-0002',
  OPENAI_API_KEY: 'rel-openai-0003',
  ANTHROPIC_API_KEY: 'rel-anthropic-0004',
  SSH_KEY_PATH: '/home/rel/.ssh/id-rel-0005',
  STRIPE_KEY: 'rel-stripe-0006',
  GITHUB_TOKEN: 'rel-github-0007',
  NPM_TOKEN: 'rel-npm-0008',
  PGPASSWORD: 'rel-pg-0009',
  client_secret: 'rel-client-0010',
  MY_CREDENTIALS_FILE: '/srv/rel-cred-0011',
  DATABASE_URL: 'postgres://app:rel-db-0012@db.internal:5432/app',
  REDIS_URL: 'redis://:rel-redis-0013@cache:6379/0',
  GIT_REMOTE: 'https://x-access-token:rel-git-0014@git.example/org/repo.git',
  MIRRORS: 'http://plain.example https://rel-mirror-0015@mirror.example/x',
  AMQP_ADDR: 'amqps://guest:rel-amqp-0016@mq.example/vhost',
}

/** Look like neither: must reach every child. */
const PLAIN: Record<string, string> = {
  REL_PLAIN_URL: 'postgres://db.internal:5432/app',
  REL_EMAIL: 'someone@example.com',
  REL_NOTE: 'meet @ noon',
}

const CLAUDE_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'Notification',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'SessionEnd',
]
const CODEX_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'Stop',
]
/** The events a plain `dsh run` with tool calls fires; each must have produced a dump. */
const FIRED = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop']

let dir: string
beforeAll(() => {
  assertBuilt()
  dir = createTempDir('dsh-rel-scrub-')
})
afterAll(() => removeTempDir(dir))

function hookFile(path: string, events: string[], prefix: string): void {
  const hooks = Object.fromEntries(
    events.map((event) => [
      event,
      [{ hooks: [{ type: 'command', command: `env > ${dir}/dumps/${prefix}-${event}-$$.txt` }] }],
    ]),
  )
  writeFileSync(path, JSON.stringify({ hooks }))
}

it('no secret name or value reaches bash, a background job, any hook event or an MCP server', async () => {
  const started = Date.now()
  const dumps = join(dir, 'dumps')
  mkdirSync(dumps)
  hookFile(join(dir, 'claude.json'), CLAUDE_EVENTS, 'claude')
  hookFile(join(dir, 'codex.json'), CODEX_EVENTS, 'codex')
  const dump = (label: string) => `env > ${dumps}/${label}-$$.txt`
  const model = await startLoopbackModel([
    {
      toolCalls: [
        { name: 'bash', arguments: { command: `${dump('job')}; sleep 0.2`, run_in_background: true } },
        { name: 'bash', arguments: { command: `${dump('bash')}; sleep 0.5` } },
      ],
    },
    { text: 'done' },
  ])
  const mcp = JSON.stringify(`env > ${dumps}/mcp-$$.txt; exec "${process.execPath}" "${FIXTURE_SERVER}"`)
  const world = makeWorld(
    dir,
    model.baseUrl,
    [
      'hooks:',
      `  claudeCode: [${join(dir, 'claude.json')}]`,
      `  codex: [${join(dir, 'codex.json')}]`,
      'mcpServers:',
      '  envdump:',
      '    command: bash',
      `    args: ["-c", ${mcp}]`,
      '',
    ].join('\n'),
  )
  try {
    const run = await runCli(['run', 'dump the environment'], {
      env: { ...world.env, ...SECRETS, ...PLAIN },
      cwd: world.project,
      timeoutMs: 60_000,
    })
    expect(run.code, run.stderr).toBe(0)
    await until(() => readdirSync(dumps).some((file) => file.startsWith('job-')), 5_000, 'the background job')
  } finally {
    await model.close()
  }

  const files = readdirSync(dumps)
  const sinks = new Set(files.map((file) => file.replace(/-\d+\.txt$/, '')))
  const expected = [
    'bash',
    'job',
    'mcp',
    ...FIRED.map((event) => `claude-${event}`),
    ...FIRED.map((event) => `codex-${event}`),
  ]
  for (const sink of expected) expect([...sinks], `no dump from ${sink}`).toContain(sink)
  // The API key in use is a secret too (DEEPSEEK_API_KEY in the world's environment).
  const secretValues = { ...SECRETS, DEEPSEEK_API_KEY: 'test-key' }
  const leaks: string[] = []
  let checks = 0
  for (const file of files) {
    const text = readFileSync(join(dumps, file), 'utf8')
    for (const [name, value] of Object.entries(secretValues)) {
      checks++
      if (text.includes(value) || new RegExp(`^${name}=`, 'm').test(text)) leaks.push(`${file}: ${name}`)
    }
    for (const [name, value] of Object.entries(PLAIN)) expect(text, file).toContain(`${name}=${value}`)
  }
  expect(leaks).toEqual([])
  reportFigure('secret-scrub', {
    secrets: Object.keys(secretValues).length,
    sinks: sinks.size,
    dumps: files.length,
    checks,
    leaks: 0,
    ms: Date.now() - started,
  })
})
