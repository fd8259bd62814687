// The command line on the PostgreSQL backend, through the real built CLI and a real
// server: two "hosts" (two homes with their own host names) share one session store.

import pg from 'pg'
import { beforeAll, expect, it } from 'vitest'
import { type Script, useLoopbackModels } from '../../support/loopback-model.js'
import { describePostgres, describeSkipReason, useCluster } from '../../support/postgres.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, type CliWorld, hasStack, jsonLines, makeWorld, runCli, spawnCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-pg-')

describePostgres(`dsh on the postgres backend${describeSkipReason()}`, { timeout: 120_000 }, () => {
  const pgHandle = useCluster()
  const startModel = useLoopbackModels()

  beforeAll(assertBuilt)

  function host(baseUrl: string, name: string, schema: string, url = pgHandle.cluster.url): CliWorld {
    return makeWorld(
      makeDir(),
      baseUrl,
      `persistence:\n  backend: postgres\n  url: ${url}\n  schema: ${schema}\n  hostName: ${name}\n`,
    )
  }

  async function hosts(script: Script): Promise<[CliWorld, CliWorld]> {
    const model = await startModel(script, { strict: true })
    const schema = pgHandle.schema()
    return [host(model.baseUrl, 'host-a', schema), host(model.baseUrl, 'host-b', schema)]
  }

  it('a session started on one host resumes on another with the same id and history', async () => {
    const [a, b] = await hosts([
      {
        toolCalls: [{ name: 'bash', arguments: { command: 'echo "jsonl=$' + '{DSH_SESSION_JSONL-unset}"' } }],
      },
      { text: 'first answer' },
      { text: 'second answer' },
    ])
    const first = await runCli(['run', '--json', 'first question'], { env: a.env, cwd: a.project })
    expect(first.stderr).toBe('')
    expect(first.code).toBe(0)
    const { sessionId: id, transcriptPath } = jsonLines(first.stdout)[0] as {
      sessionId: string
      transcriptPath: unknown
    }
    expect(transcriptPath).toBeNull()

    const second = await runCli(['run', '--resume', id, 'second question'], { env: b.env, cwd: b.project })
    expect(second.stderr).toMatch(new RegExp(`^session ${id} \\(resumed\\)\n`))
    expect(second.code).toBe(0)
    expect(second.stdout).toBe('second answer\n')

    const shown = await runCli(['sessions', 'show', '--json', id], { env: a.env, cwd: a.project })
    const lines = jsonLines(shown.stdout)
    expect(lines[0]).toMatchObject({ type: 'session', id: id, cwd: a.project })
    const events = lines.slice(1) as { seq: number; type: string; data: Record<string, unknown> }[]
    expect(events.map((event) => event.seq)).toEqual([...events.keys()])
    expect(events.filter((event) => event.type === 'user/message').map((event) => event.data.text)).toEqual([
      'first question',
      'second question',
    ])
    const toolResult = events.find((event) => event.type === 'tool/result')!
    expect(toolResult.data.content).toContain('jsonl=unset')

    const path = await runCli(['sessions', 'path', id], { env: b.env, cwd: b.project })
    expect(path.code).toBe(0)
    expect(path.stdout).toMatch(
      /has no dedicated file: the postgres backend keeps none \(it is stored in the database 127\.0\.0\.1:\d+\/postgres, schema /,
    )

    const table = await runCli(['sessions', 'list', '--all'], { env: b.env, cwd: b.project })
    expect(table.stdout).toMatch(/^ID\s+AGE\s+TURNS\s+USAGE\s+HOST\s+STATUS\s+FOLDER\s+TITLE$/m)
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+\\S+\\s+2\\s+.*host-b\\s+completed\\s+${a.project}`))
  })

  it('sessions rm refuses a session another host is writing, naming it, and removes it once free', async () => {
    const [a, b] = await hosts([
      { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] },
      { text: 'never' },
    ])
    const running = spawnCli(['run', '--json', 'wait a while'], {
      env: a.env,
      cwd: a.project,
      timeoutMs: 60_000,
    })
    let id = ''
    try {
      await until(() => running.stdout().includes('"tool-start"'), 30_000)
      id = (JSON.parse(running.stdout().split('\n')[0]!) as { sessionId: string }).sessionId
      const refused = await runCli(['sessions', 'rm', id], { env: b.env, cwd: b.project })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(
        new RegExp(
          `^dsh: session "${id}" is being written by process ${running.child.pid} on host-a \\(its lease expires in \\d+s unless renewed\\); it was not removed`,
        ),
      )
      expect(hasStack(refused.stderr)).toBe(false)
    } finally {
      running.child.kill('SIGINT')
      await running.done
    }
    const removed = await runCli(['sessions', 'rm', id], { env: b.env, cwd: b.project })
    expect(removed.code, removed.stderr).toBe(0)
    expect(removed.stdout).toMatch(new RegExp(`^removed ${id} `))
    const left = await runCli(['sessions', 'list', '--all', '--json'], { env: a.env, cwd: a.project })
    expect(JSON.parse(left.stdout)).toEqual([])
  })

  it('sessions list filters by host and status across folders', async () => {
    const [a, b] = await hosts([{ text: 'from a' }, { text: 'from b' }])
    await runCli(['run', 'on a'], { env: a.env, cwd: a.project })
    await runCli(['run', 'on b'], { env: b.env, cwd: b.project })
    const onA = await runCli(['sessions', 'list', '--json', '--host', 'host-a'], {
      env: b.env,
      cwd: b.project,
    })
    const rows = JSON.parse(onA.stdout) as { title: string; host: string; status: string }[]
    expect(rows).toEqual([expect.objectContaining({ title: 'on a', host: 'host-a', status: 'idle' })])
    const live = await runCli(['sessions', 'list', '--json', '--status', 'live'], {
      env: b.env,
      cwd: b.project,
    })
    expect(JSON.parse(live.stdout)).toEqual([])
    const bad = await runCli(['sessions', 'list', '--status', 'sleepy'], { env: b.env, cwd: b.project })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^dsh: --status must be one of live, interrupted, idle/)
  })

  it('sessions tail --follow streams events another host commits, until Ctrl-C', async () => {
    const [a, b] = await hosts([{ text: 'first' }, { text: 'second' }])
    const first = await runCli(['run', '--json', 'watch me'], { env: a.env, cwd: a.project })
    const { sessionId: id } = jsonLines(first.stdout)[0] as { sessionId: string }
    const tail = spawnCli(['sessions', 'tail', id, '--follow', '--json', '-n', '2'], {
      env: b.env,
      cwd: b.project,
    })
    const lines = () => jsonLines(tail.stdout()) as { seq: number; type: string }[]
    await until(() => lines().length === 2)
    const stored = lines()
    expect(stored.at(-1)!.type).toBe('turn/end')

    const second = await runCli(['run', '--resume', id, 'and again'], { env: a.env, cwd: a.project })
    expect(second.code).toBe(0)
    await until(() => lines().some((line) => line.type === 'turn/end' && line.seq > stored.at(-1)!.seq))
    const seqs = lines().map((line) => line.seq)
    expect(seqs).toEqual([...Array(seqs.length).keys()].map((index) => seqs[0]! + index))
    tail.child.kill('SIGINT')
    const end = await tail.done
    expect(end.code).toBe(130)
    expect(end.stderr).toBe('')
  })

  it('dsh db migrate applies the schema once, then says it is up to date', async () => {
    const [a] = await hosts([])
    const first = await runCli(['db', 'migrate'], { env: a.env, cwd: a.project })
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/^applied 1: sessions, events, writer leases/m)
    expect(first.stdout).toMatch(/^applied 2: the sessions row keeps its usage ledger/m)
    expect(first.stdout).toMatch(/^applied 3: session images/m)
    expect(first.stdout).toMatch(/^applied 4: history search/m)
    expect(first.stdout).toMatch(/migrated from version 0 to 6\n$/)
    const again = await runCli(['db', 'migrate'], { env: a.env, cwd: a.project })
    expect(again.stdout).toMatch(/ schema t\S+ is up to date \(version 6\)\n$/)
  })

  it('a schema migrated by a newer dsh is refused in one line, and nothing is written', async () => {
    const model = await startModel([{ text: 'never' }], { strict: true })
    const schema = pgHandle.schema()
    const a = host(model.baseUrl, 'host-a', schema)
    expect((await runCli(['db', 'migrate'], { env: a.env, cwd: a.project })).code).toBe(0)
    const client = new pg.Client({ connectionString: pgHandle.cluster.url })
    await client.connect()
    try {
      await client.query(
        `INSERT INTO "${schema}".schema_migrations (version, description) VALUES (99, 'from the future')`,
      )
      for (const args of [
        ['db', 'migrate'],
        ['run', 'hello'],
        ['sessions', 'list'],
      ]) {
        const result = await runCli(args, { env: a.env, cwd: a.project })
        expect(result.code, args.join(' ')).toBe(1)
        expect(result.stderr).toMatch(
          new RegExp(
            `^dsh: the database schema "${schema}" is at version 99, newer than this dsh understands \\(6\\): upgrade dsh; nothing was written\n$`,
          ),
        )
      }
      expect(model.requests).toHaveLength(0)
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM "${schema}".sessions`)
      expect(rows[0].n).toBe(0)
    } finally {
      await client.end()
    }
  })

  it('an unreachable database is one line naming the server, never the password', async () => {
    const model = await startModel([])
    const down = host(
      model.baseUrl,
      'host-a',
      pgHandle.schema(),
      'postgres://dsh:s3cret-pw@127.0.0.1:9/sessions',
    )
    for (const args of [
      ['sessions', 'list'],
      ['run', 'hello'],
      ['db', 'migrate'],
    ]) {
      const result = await runCli(args, { env: down.env, cwd: down.project })
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/^dsh: cannot reach the session database 127\.0\.0\.1:9\/sessions: .+\n$/)
      expect(result.stderr).not.toContain('s3cret-pw')
      expect(hasStack(result.stderr)).toBe(false)
    }
    expect(model.requests).toHaveLength(0)
  })
})
