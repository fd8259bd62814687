// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config syntax under test
// `dsh run` and MCP servers: servers start in the background (the first model request does
// not wait for one that never finishes starting), every server's process group is stopped
// on every way out (a normal end, SIGTERM), and `--mcp` chooses the servers of one run.

import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ReceivedRequest } from '../../support/loopback-model.js'
import { FIXTURE_SERVER, SERVER_TEST_TIMEOUT_MS } from '../../support/mcp-servers.js'
import { groupGone, isLive } from '../../support/processes.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, hasStack, spawnCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-mcp-run-')
const startWorld = useModelWorlds(makeDir)
const HANGING_SERVER = join(import.meta.dirname, '../../mcp/fixtures/hanging-server.mjs')
/** Long enough that a run waiting for it is plainly told apart from one that does not. */
const STARTUP_TIMEOUT_MS = 20_000

beforeAll(assertBuilt)

const offered = (request: ReceivedRequest) => (request.tools ?? []).map((tool) => tool.function.name)

/** A world with the hanging server; its pids file, read once the server ran. */
async function hangingWorld(script: Parameters<typeof startWorld>[0]) {
  const dir = makeDir()
  const pidsFile = join(dir, 'hang-pids')
  const world = await startWorld(script, {
    config: [
      'mcpServers:',
      `  hang: { command: node, args: [${JSON.stringify(HANGING_SERVER)}], startupTimeoutMs: ${STARTUP_TIMEOUT_MS}, env: { HANG_PIDS: ${JSON.stringify(pidsFile)} } }`,
      '',
    ].join('\n'),
  })
  const pids = () => {
    const [server, child, startedAt] = readFileSync(pidsFile, 'utf8').trim().split(' ').map(Number)
    return { server: server!, child: child!, startedAt: startedAt! }
  }
  return { world, pidsFile, pids }
}

describe('a server that never finishes starting', () => {
  it(
    'does not hold the first request, and is stopped with its process group when the run ends',
    async () => {
      let requestedAt = 0
      const { world, pidsFile, pids } = await hangingWorld([
        async () => {
          requestedAt = Date.now()
          // The server has run by the time the answer comes: there is a process to stop.
          await until(() => existsSync(pidsFile), SERVER_TEST_TIMEOUT_MS, 'the hanging server')
          return { text: 'answered without it' }
        },
      ])
      const run = await spawnCli(['run', 'hello'], {
        env: world.env,
        cwd: world.project,
        timeoutMs: SERVER_TEST_TIMEOUT_MS,
      }).done
      expect(run.stdout).toBe('answered without it\n')
      expect(run.code).toBe(0)
      expect(run.stderr).toContain('MCP server hang is still starting; its tools join when it is ready')
      const { server, child, startedAt } = pids()
      // The first request came before the server's start-up timeout ran out.
      expect(requestedAt - startedAt).toBeLessThan(STARTUP_TIMEOUT_MS)
      expect(offered(world.model.requests[0]!).some((name) => name.startsWith('mcp__'))).toBe(false)
      // The server led its own process group; nothing of it is left.
      await groupGone(server)
      expect(isLive(child)).toBe(false) // it was in the server's group
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'is stopped with its process group when SIGTERM ends the run',
    async () => {
      let release: () => void = () => {}
      const held = new Promise<void>((resolve) => {
        release = resolve
      })
      const { world, pidsFile, pids } = await hangingWorld([
        async () => {
          await held
          return { text: 'not reached' }
        },
      ])
      const cli = spawnCli(['run', 'hello'], {
        env: world.env,
        cwd: world.project,
        timeoutMs: SERVER_TEST_TIMEOUT_MS,
      })
      await until(() => world.model.requests.length > 0 && existsSync(pidsFile), SERVER_TEST_TIMEOUT_MS)
      const { server, child } = pids()
      expect(isLive(child)).toBe(true)
      cli.child.kill('SIGTERM')
      const run = await cli.done
      release()
      expect(run.code).toBe(143)
      await groupGone(server)
      expect(isLive(child)).toBe(false) // it was in the server's group
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})

describe('dsh run --mcp', () => {
  /** Two fixture servers, a and b; each writes to its own mark file when it runs. */
  async function twoServers(script: Parameters<typeof startWorld>[0], dir = makeDir()) {
    const mark = (name: string) => join(dir, `${name}-started`)
    const entry = (name: string) =>
      `  ${name}: { command: node, args: [${JSON.stringify(FIXTURE_SERVER)}], env: { FIXTURE_MARK: ${JSON.stringify(mark(name))} } }`
    const world = await startWorld(script, { config: ['mcpServers:', entry('a'), entry('b'), ''].join('\n') })
    return { world, mark }
  }

  it(
    '`--mcp a` starts a only; its tools join once it is ready',
    async () => {
      const dir = makeDir()
      const aMark = join(dir, 'a-started')
      const { world, mark } = await twoServers(
        [
          async () => {
            await until(() => existsSync(aMark), SERVER_TEST_TIMEOUT_MS, 'server a')
            return { text: 'first' }
          },
        ],
        dir,
      )
      const run = await spawnCli(['run', 'hello', '--mcp', 'a'], {
        env: world.env,
        cwd: world.project,
        timeoutMs: SERVER_TEST_TIMEOUT_MS,
      }).done
      expect(run.code).toBe(0)
      expect(existsSync(mark('a'))).toBe(true)
      expect(existsSync(mark('b'))).toBe(false)
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it('`--mcp none` starts none', async () => {
    const { world, mark } = await twoServers([{ text: 'no servers' }])
    const run = await spawnCli(['run', 'hello', '--mcp', 'none'], { env: world.env, cwd: world.project }).done
    expect(run.stdout).toBe('no servers\n')
    expect(run.code).toBe(0)
    expect(run.stderr).not.toContain('MCP server')
    expect(existsSync(mark('a'))).toBe(false)
    expect(existsSync(mark('b'))).toBe(false)
  })

  it('an unknown name is one line and exit 2, before any request', async () => {
    const { world } = await twoServers([{ text: 'not reached' }])
    const run = await spawnCli(['run', 'hello', '--mcp', 'a,nope'], { env: world.env, cwd: world.project })
      .done
    expect(run.code).toBe(2)
    expect(hasStack(run.stderr)).toBe(false)
    expect(run.stderr.trimEnd()).toBe('dsh: --mcp: no MCP server named nope (servers: a, b)')
    expect(world.model.requests).toHaveLength(0)
  })
})

describe("a stdio server's cwd in config.yaml", () => {
  it(
    "expands ${VAR} first, then resolves a relative result against the config file's folder",
    async () => {
      let marks: string[] = []
      const started = () => marks.every((mark) => existsSync(mark))
      const world = await startWorld(
        [
          async () => {
            // A server that cannot start never writes its mark: the run goes on without it.
            await until(started, SERVER_TEST_TIMEOUT_MS / 3).catch(() => {})
            return { text: 'done' }
          },
        ],
        {
          config: [
            'mcpServers:',
            // FIXTURE_MARK is relative: each server writes it in the folder it runs in.
            `  v: { command: node, args: [${JSON.stringify(FIXTURE_SERVER)}], cwd: "\${MCP_TEST_WORKDIR}/x", env: { FIXTURE_MARK: mark } }`,
            `  r: { command: node, args: [${JSON.stringify(FIXTURE_SERVER)}], cwd: "\${MCP_TEST_SUB}", env: { FIXTURE_MARK: mark } }`,
            '',
          ].join('\n'),
        },
      )
      mkdirSync(join(world.project, 'x'))
      mkdirSync(join(world.home, 'rel'))
      marks = [join(world.project, 'x', 'mark'), join(world.home, 'rel', 'mark')]
      const run = await spawnCli(['run', 'hello'], {
        env: { ...world.env, MCP_TEST_WORKDIR: world.project, MCP_TEST_SUB: 'rel' },
        cwd: world.project,
        timeoutMs: SERVER_TEST_TIMEOUT_MS,
      }).done
      expect(run.code).toBe(0)
      expect(run.stderr).not.toContain('failed to start')
      expect(marks.filter((mark) => !existsSync(mark))).toEqual([])
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})
