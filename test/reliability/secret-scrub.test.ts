// The secret-scrub matrix through the real CLI: credential-bearing names and values in
// dsh's environment × every child dsh starts or talks to — bash calls (also inside a
// sub-agent), a background job, every hook event both bridges emit (tool, sub-agent,
// stop, failure, permission and session events), a stdio MCP server and a Streamable
// HTTP MCP server. None sees a secret unless the user allow-listed it or wrote `${VAR}`
// for it in the server's entry; plain variables pass.

import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { client as acpClient, PROTOCOL_VERSION } from '@agentclientprotocol/sdk'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { nodeNdJsonStream } from '../../src/apps/acp/streams.js'
import { assertBuilt, CLI, type CliWorld, makeWorld, runCli } from '../apps/cli/cli.js'
import { type ScriptStep, startLoopbackModel } from '../support/loopback-model.js'
import { startMcpHttpServer } from '../support/mcp-http-server.js'
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
  MYSQL_PWD: 'rel-mysql-0020',
  DB_PASS: 'rel-dbpass-0021',
  DB_PASSWD: 'rel-dbpasswd-0022',
  GITHUB_PAT: 'rel-pat-0023',
  OPENAI_ORG_ID: 'rel-openai-org-0024',
  GEMINI_PROJECT: 'rel-gemini-0025',
  // Secret only by the config's `secrets.scrub: [CORP_*]`.
  CORP_INTERNAL: 'rel-corp-0017',
  // Written as `${REL_MCP_TOKEN}` in the MCP entries: it reaches those, and only as written.
  REL_MCP_TOKEN: 'rel-mcp-0018',
}

/** Look like neither: must reach every child. */
const PLAIN: Record<string, string> = {
  REL_PLAIN_URL: 'postgres://db.internal:5432/app',
  REL_EMAIL: 'someone@example.com',
  REL_NOTE: 'meet @ noon',
  // Near the new name parts (PASS, PAT, PWD) without being one.
  REL_COMPASS_PATH: '/opt/compass',
}

/** Looks secret, but the config's `secrets.allow` lists it: must reach every child. */
const ALLOWED: Record<string, string> = { REL_ALLOWED_TOKEN: 'rel-allowed-0019' }

/** Every event each bridge emits (the dialect.ts of src/hooks/claude-code and codex); neither bridges compaction events. */
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

let dir: string
let dumps: string
beforeAll(() => {
  assertBuilt()
  dir = createTempDir('dsh-rel-scrub-')
  dumps = join(dir, 'dumps')
  mkdirSync(dumps)
})
afterAll(() => removeTempDir(dir))

/** `${NAME}` as a user writes it in an MCP entry (expanded by dsh, not by this test). */
const written = (name: string) => `\${${name}}`

/**
 * A shell command that writes its environment to `<label>-<pid>.txt`, whole: written aside
 * and moved into place, so a waiter that sees the file never reads it half-written (the
 * StopFailure hook runs detached from the turn).
 */
const dump = (label: string) =>
  `env > ${dumps}/${label}-$$.part && mv ${dumps}/${label}-$$.part ${dumps}/${label}-$$.txt`

/** Every event of a dialect: dump the payload (stdin) and the environment. */
function hookFile(path: string, events: string[], prefix: string): void {
  const hooks = Object.fromEntries(
    events.map((event) => [
      event,
      [
        {
          hooks: [
            {
              type: 'command',
              command: `cat > ${dumps}/${prefix}-${event}-$$.json; ${dump(`${prefix}-${event}`)}`,
            },
          ],
        },
      ],
    ]),
  )
  writeFileSync(path, JSON.stringify({ hooks }))
}

/**
 * One model for every run, deciding from the last user message: the main turn (a job, a
 * bash call, a failing call, a sub-agent), the sub-agent's own bash call, a turn the API
 * fails (StopFailure), and the ACP turn whose bash call needs permission.
 */
const step: ScriptStep = (request) => {
  const prompt = [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? ''
  const answered = request.messages.at(-1)?.role === 'tool'
  if (prompt.includes('fail now')) return { status: 500, message: 'scripted outage' }
  if (prompt.includes('child task'))
    return answered
      ? { text: 'child done' }
      : { toolCalls: [{ name: 'bash', arguments: { command: dump('child-bash') } }] }
  if (prompt.includes('ask first'))
    return answered
      ? { text: 'asked' }
      : { toolCalls: [{ name: 'bash', arguments: { command: dump('acp-bash') } }] }
  if (answered) return { text: 'done' }
  return {
    toolCalls: [
      { name: 'bash', arguments: { command: `${dump('job')}; sleep 0.2`, run_in_background: true } },
      { name: 'bash', arguments: { command: `${dump('bash')}; sleep 0.5` } },
      { name: 'bash', arguments: { command: `${dump('failing')}; exit 3` } },
      {
        name: 'subagent',
        arguments: { description: 'dump the environment', prompt: 'child task: dump the environment' },
      },
    ],
  }
}

/** `dsh acp` as an editor runs it: one session, one prompt whose bash call the client allows. */
async function acpTurn(world: CliWorld, env: NodeJS.ProcessEnv, config: string): Promise<number> {
  const child = spawn(process.execPath, [CLI, 'acp', '--config', config], {
    env,
    cwd: world.project,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text
  })
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  let asked = 0
  const app = acpClient({ name: 'dsh-reliability' })
    .onNotification('session/update', () => {})
    .onRequest('session/request_permission', () => {
      asked++
      return { outcome: { outcome: 'selected', optionId: 'allow_once' } }
    })
  const connection = app.connect(nodeNdJsonStream(child.stdout, child.stdin))
  try {
    await connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
    const { sessionId } = await connection.agent.request('session/new', {
      cwd: world.project,
      mcpServers: [],
    })
    const done = await connection.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'ask first, then dump the environment' }],
    })
    expect(done.stopReason, stderr).toBe('end_turn')
  } finally {
    child.stdin.end()
    expect(await exited, stderr).toBe(0)
    connection.close()
  }
  return asked
}

it('no secret name or value reaches bash, a job, a sub-agent, any hook event or an MCP server', async () => {
  const started = Date.now()
  hookFile(join(dir, 'claude.json'), CLAUDE_EVENTS, 'claude')
  hookFile(join(dir, 'codex.json'), CODEX_EVENTS, 'codex')
  const model = await startLoopbackModel(Array.from({ length: 40 }, () => step))
  const http = await startMcpHttpServer()
  const mcp = JSON.stringify(`${dump('mcp')}; exec "${process.execPath}" "${FIXTURE_SERVER}"`)
  const config = [
    'hooks:',
    `  claudeCode: [${join(dir, 'claude.json')}]`,
    `  codex: [${join(dir, 'codex.json')}]`,
    'secrets:',
    '  scrub: ["CORP_*"]',
    `  allow: [${Object.keys(ALLOWED).join(', ')}]`,
    'mcpServers:',
    '  envdump:',
    '    command: bash',
    `    args: ["-c", ${mcp}]`,
    `    env: { REL_GIVEN: "${written('REL_MCP_TOKEN')}" }`,
    '  remote:',
    '    type: http',
    `    url: ${http.origin}/mcp`,
    `    headers: { Authorization: "Bearer ${written('REL_MCP_TOKEN')}", X-Rel-Plain: "${written('REL_NOTE')}" }`,
    '',
  ].join('\n')
  const world = makeWorld(dir, model.baseUrl, config)
  const env = { ...world.env, ...SECRETS, ...PLAIN, ...ALLOWED }
  // The ACP front end asks before bash, which fires PermissionRequest and Notification.
  const acpConfig = join(world.home, 'acp.yaml')
  writeFileSync(
    acpConfig,
    `${readFileSync(join(world.home, 'config.yaml'), 'utf8')}permissions:\n  ask: ["Bash"]\n`,
  )
  let asked = 0
  try {
    const run = await runCli(['run', '--session-id', 'scrub', 'dump the environment'], {
      env,
      cwd: world.project,
      timeoutMs: 90_000,
    })
    expect(run.code, run.stderr).toBe(0)
    const failed = await runCli(['run', '--session-id', 'scrub', 'fail now'], {
      env,
      cwd: world.project,
      timeoutMs: 60_000,
    })
    expect(failed.code, failed.stderr).not.toBe(0)
    asked = await acpTurn(world, env, acpConfig)
    expect(asked).toBeGreaterThan(0)
    await until(() => readdirSync(dumps).some((file) => file.startsWith('job-')), 5_000, 'the background job')
    // StopFailure hooks run detached from the turn (their output is ignored).
    await until(
      () =>
        readdirSync(dumps).some((file) => file.startsWith('claude-StopFailure-') && file.endsWith('.txt')),
      5_000,
      'the StopFailure hook',
    )
  } finally {
    await model.close()
    await http.close()
  }

  const files = readdirSync(dumps)
  const sinks = new Set(
    files.filter((file) => file.endsWith('.txt')).map((file) => file.replace(/-\d+\.txt$/, '')),
  )
  const expected = [
    'bash',
    'job',
    'failing',
    'child-bash',
    'acp-bash',
    'mcp',
    ...CLAUDE_EVENTS.map((event) => `claude-${event}`),
    ...CODEX_EVENTS.map((event) => `codex-${event}`),
  ]
  expect([...sinks].sort()).toEqual([...expected].sort())
  // A tool hook inside the sub-agent ran (its payload carries the child's command).
  const subagentToolHook = files.some(
    (file) =>
      file.startsWith('claude-PreToolUse-') &&
      file.endsWith('.json') &&
      readFileSync(join(dumps, file), 'utf8').includes('child-bash'),
  )
  expect(subagentToolHook, 'no PreToolUse hook fired for the sub-agent').toBe(true)

  // The API key in use is a secret too (DEEPSEEK_API_KEY in the world's environment).
  const secretValues: Record<string, string> = { ...SECRETS, DEEPSEEK_API_KEY: 'test-key' }
  const leaks: string[] = []
  let checks = 0
  for (const file of files) {
    const text = readFileSync(join(dumps, file), 'utf8')
    const isEnv = file.endsWith('.txt')
    for (const [name, value] of Object.entries(secretValues)) {
      checks++
      // The stdio entry's `REL_GIVEN: "${REL_MCP_TOKEN}"` was written by the user: that value may arrive there.
      const userWrote = file.startsWith('mcp-') && name === 'REL_MCP_TOKEN'
      if ((!userWrote && text.includes(value)) || (isEnv && new RegExp(`^${name}=`, 'm').test(text)))
        leaks.push(`${file}: ${name}`)
    }
    if (!isEnv) continue
    for (const [name, value] of Object.entries({ ...PLAIN, ...ALLOWED }))
      expect(text, file).toContain(`${name}=${value}`)
    if (file.startsWith('mcp-')) expect(text).toContain(`REL_GIVEN=${SECRETS.REL_MCP_TOKEN}`)
  }

  // The HTTP server sees the headers the entry wrote, expanded, and nothing else of the environment.
  expect(http.received.length).toBeGreaterThan(0)
  for (const { url, headers } of http.received) {
    expect(headers.authorization).toBe(`Bearer ${SECRETS.REL_MCP_TOKEN}`)
    expect(headers['x-rel-plain']).toBe(PLAIN.REL_NOTE)
    const seen = JSON.stringify({ url, headers: { ...headers, authorization: undefined } })
    for (const [name, value] of Object.entries(secretValues)) {
      checks++
      if (seen.includes(value) || seen.toLowerCase().includes(`"${name.toLowerCase()}"`))
        leaks.push(`http ${url}: ${name}`)
    }
  }
  expect(leaks).toEqual([])
  reportFigure('secret-scrub', {
    secrets: Object.keys(secretValues).length,
    sinks: sinks.size + 1,
    dumps: files.length,
    httpRequests: http.received.length,
    permissionAsks: asked,
    checks,
    leaks: 0,
    ms: Date.now() - started,
  })
})
