// The secret scrub: credential-looking names, credential-bearing values (URL userinfo),
// configured extra names and the allow list — unit matrix, and end to end through bash,
// a background job and every hook event of a real harness.

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildChildEnv, createSecretFilter, DEFAULT_SECRET_FILTER } from '../../src/shell/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

/** Secrets by name or by value: none may reach a child. */
const SECRETS: Record<string, string> = {
  DEEPSEEK_API_KEY: 'sk-deepseek-secret',
  AWS_ACCESS_KEY_ID: 'AKIASECRETVALUE',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-value',
  SSH_KEY_PATH: '/home/me/.ssh/id_secret',
  STRIPE_KEY: 'sk_live_secret',
  GITHUB_TOKEN: 'ghp_secretvalue',
  PGPASSWORD: 'pg-secret',
  my_credentials: 'cred-secret',
  DATABASE_URL: 'postgres://app:hunter2-secret@db.internal:5432/app',
  REDIS_URL: 'redis://:redis-secret@cache:6379/0',
  GIT_REMOTE: 'https://x-access-token:ghs_secret@github.com/org/repo.git',
  MIRRORS: 'http://plain.example https://deploy-secret@registry.example/x',
  CORP_INTERNAL: 'corp-secret',
  MYSQL_PWD: 'mysql-pwd-secret',
  DB_PASS: 'db-pass-secret',
  DB_PASSWD: 'db-passwd-secret',
  SMTP_PASS_FILE: '/run/smtp-pass-secret',
  GITHUB_PAT: 'github-pat-secret',
  SLACK_WEBHOOK_URL: 'https://hooks.example/T0/B0/webhook-secret',
  OPENAI_ORG_ID: 'org-openai-secret',
  ANTHROPIC_BASE_URL: 'https://anthropic-proxy.example/anthropic-secret',
  GEMINI_PROJECT: 'gemini-secret',
}

/** Look like neither: must pass. */
const PLAIN: Record<string, string> = {
  PLAIN_URL: 'postgres://db.internal:5432/app',
  EMAIL: 'someone@example.com',
  GIT_AUTHOR_NAME: 'Some One',
  SSH_AUTH_SOCK: '/tmp/agent.sock',
  LD_LIBRARY_PATH: '/opt/lib',
  TOX_TESTENV_PASSENV: 'HOME',
  COMPASS_HOME: '/opt/compass',
  NOTE: 'meet @ noon, see https://example.com/a@b',
}

const POLICY = { scrub: ['CORP_*'], allow: ['GITHUB_TOKEN'] }

describe('secret filter', () => {
  it.each(Object.entries(SECRETS))('scrubs %s by default or by policy', (name, value) => {
    const policyFilter = createSecretFilter(POLICY)
    if (name === 'GITHUB_TOKEN') {
      expect(DEFAULT_SECRET_FILTER.isSecret(name, value)).toBe(true)
      expect(policyFilter.isSecret(name, value)).toBe(false) // allowed on purpose
    } else if (name === 'CORP_INTERNAL') {
      expect(DEFAULT_SECRET_FILTER.isSecret(name, value)).toBe(false)
      expect(policyFilter.isSecret(name, value)).toBe(true)
      expect(policyFilter.isSecret('corp_other', 'x')).toBe(true) // globs are case-insensitive
    } else {
      expect(DEFAULT_SECRET_FILTER.isSecret(name, value)).toBe(true)
      expect(policyFilter.isSecret(name, value)).toBe(true)
    }
  })

  it.each(Object.entries(PLAIN))('passes %s', (name, value) => {
    expect(DEFAULT_SECRET_FILTER.isSecret(name, value)).toBe(false)
  })

  it("keeps the shell's own PWD and OLDPWD while scrubbing MYSQL_PWD and DB_PASS", () => {
    const inherited = { PWD: '/work/here', OLDPWD: '/work/there', MYSQL_PWD: 'm', DB_PASS: 'd' }
    expect(buildChildEnv(inherited, {}, {})).toMatchObject({ PWD: '/work/here', OLDPWD: '/work/there' })
    expect(buildChildEnv(inherited, {}, {}).MYSQL_PWD).toBeUndefined()
    expect(buildChildEnv(inherited, {}, {}).DB_PASS).toBeUndefined()
  })

  it('lets secrets.allow pass a name the built-in rule scrubs (the escape hatch)', () => {
    const filter = createSecretFilter({ allow: ['MYSQL_PWD', 'OPENAI_BASE_URL'] })
    expect(filter.isSecret('MYSQL_PWD', 'm')).toBe(false)
    expect(filter.isSecret('OPENAI_BASE_URL', 'https://x')).toBe(false)
    expect(filter.isSecret('DB_PASS', 'd')).toBe(true)
  })

  it('buildChildEnv applies the filter to inherited variables only', () => {
    const child = buildChildEnv({ ...SECRETS, ...PLAIN }, { EXPLICIT_TOKEN: 'given on purpose' }, {})
    for (const name of Object.keys(SECRETS).filter((n) => n !== 'CORP_INTERNAL'))
      expect(child[name]).toBeUndefined()
    for (const [name, value] of Object.entries(PLAIN)) expect(child[name]).toBe(value)
    expect(child.EXPLICIT_TOKEN).toBe('given on purpose')
  })
})

describe('secret scrub end to end', () => {
  const start = useTestHarnesses()
  const tempDir = useTempDirs('dsh-secrets-')
  const saved: Record<string, string | undefined> = {}
  beforeEach(() => {
    for (const [name, value] of Object.entries({ ...SECRETS, ...PLAIN })) {
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

  it('bash, a background job and every hook event see no secret; allowed names pass', async () => {
    const dir = tempDir()
    const out = join(dir, 'env')
    const dump = (label: string) => `env > ${out}-${label}-$$.txt`
    const events = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd']
    const settings = join(dir, 'settings.json')
    writeFileSync(
      settings,
      JSON.stringify({
        hooks: Object.fromEntries(
          events.map((event) => [event, [{ hooks: [{ type: 'command', command: dump(event) }] }]]),
        ),
      }),
    )
    const { harness } = await start({
      config: { hooks: { claudeCode: [settings] }, secrets: POLICY },
      script: [
        {
          toolCalls: [
            { name: 'bash', arguments: { command: `${dump('job')}; sleep 0.2`, run_in_background: true } },
            { name: 'bash', arguments: { command: dump('bash') } },
          ],
        },
        { text: 'done' },
      ],
    })
    const agent = await harness.agents.create({ sessionId: 'secrets', meta: { cwd: dir } })
    expect((await agent.prompt('dump the environment')).reason).toBe('completed')
    const deadline = Date.now() + 5_000
    while (!readdirSync(dir).some((file) => file.startsWith('env-job')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await harness.agents.dispose('secrets')

    const dumps = readdirSync(dir).filter((file) => file.startsWith('env-'))
    const labels = new Set(dumps.map((file) => file.split('-')[1]))
    expect([...labels].sort()).toEqual([...events, 'bash', 'job'].sort())
    for (const file of dumps) {
      const text = readFileSync(join(dir, file), 'utf8')
      for (const [name, value] of Object.entries(SECRETS)) {
        if (name === 'GITHUB_TOKEN') {
          expect(text, `${file}: allowed ${name}`).toContain(`${name}=${value}`)
          continue
        }
        expect(text, `${file} leaks ${name}`).not.toContain(value)
      }
      for (const [name, value] of Object.entries(PLAIN)) expect(text, file).toContain(`${name}=${value}`)
    }
    expect(existsSync(dir)).toBe(true)
  })
})

describe('the variable model.apiKeyEnv names', () => {
  const start = useTestHarnesses()
  const tempDir = useTempDirs('dsh-secrets-keyenv-')

  it('is scrubbed from commands whatever its name', async () => {
    const value = 'sk-llm-api-1234567890abcdef'
    process.env.LLM_API = value
    try {
      const dir = tempDir()
      const out = join(dir, 'env.txt')
      const { harness } = await start({
        config: { model: { apiKeyEnv: 'LLM_API' } },
        script: [{ toolCalls: [{ name: 'bash', arguments: { command: `env > ${out}` } }] }, { text: 'done' }],
      })
      const agent = await harness.agents.create({ sessionId: 'keyenv', meta: { cwd: dir } })
      expect((await agent.prompt('dump the environment')).reason).toBe('completed')
      const text = readFileSync(out, 'utf8')
      expect(text).toContain('PATH=') // the dump is real
      expect(text).not.toContain(value)
    } finally {
      delete process.env.LLM_API
    }
  })
})
