// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config syntax written as typed
// `dsh mcp list|add|remove` through the built CLI against real MCP servers (the MCP
// project's reference "everything" and filesystem servers, dsh's fixture server, an HTTP
// server on 127.0.0.1): states, tool counts and sources; edits that keep the rest of the file.

import { spawnSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { fingerprintProjectConfig, ProjectTrustStore } from '../../../src/trust/index.js'
import { startRefusingHttpServer } from '../../mcp/fixtures/refusing-http-server.js'
import { type McpHttpServer, startMcpHttpServer } from '../../support/mcp-http-server.js'
import {
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  FIXTURE_SERVER,
  SERVER_TEST_TIMEOUT_MS,
} from '../../support/mcp-servers.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, CLI, type CliWorld, hasStack, makeWorld, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-mcp-')
let http: McpHttpServer | undefined

beforeAll(assertBuilt)
afterEach(async () => {
  await http?.close()
  http = undefined
})

/** The model is never asked: `dsh mcp` only reads the config. */
const NO_MODEL = 'http://127.0.0.1:9/v1'
/** What the user wrote before `dsh mcp` touched the file: a comment and odd spacing to keep. */
const USER_CONFIG = '# my settings, by hand\nhooks:\n  projectFiles: true   # the default, said out loud\n'
/** The fixture server's tools (test/mcp/fixtures/fixture-server.mjs). */
const FIXTURE_TOOLS = 6
/** The HTTP fixture's tools (test/support/mcp-http-server.ts): echo, whoami. */
const HTTP_TOOLS = 2

const mcp = (w: CliWorld, args: string[], cwd = w.project) =>
  runCli(['mcp', ...args], { env: w.env, cwd, timeoutMs: SERVER_TEST_TIMEOUT_MS })

const configFile = (w: CliWorld) => join(w.home, 'config.yaml')

/** How many tools a stdio server lists to a bare SDK client: the count `dsh mcp list` must show. */
async function toolCount(args: string[]): Promise<number> {
  const client = new Client({ name: 'dsh-test', version: '1' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }))
  try {
    return (await client.listTools()).tools.length
  } finally {
    await client.close()
  }
}

/** A project folder (`.git`) whose `.mcp.json` names the fixture server; it writes `mark` when started. */
function projectServer(w: CliWorld, mark: string): void {
  mkdirSync(join(w.project, '.git'))
  writeFileSync(
    join(w.project, '.mcp.json'),
    JSON.stringify({
      mcpServers: { proj: { command: 'node', args: [FIXTURE_SERVER], env: { FIXTURE_MARK: mark } } },
    }),
  )
}

/** Exactly one line on stderr, `dsh: ...`, no stack. */
function expectOneLine(stderr: string): string {
  expect(hasStack(stderr)).toBe(false)
  const lines = stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^dsh: /)
  return lines[0]!
}

describe('dsh mcp list', () => {
  it(
    "shows each server's state, tool count and where it came from: the config file and a trusted .mcp.json",
    async () => {
      const dir = makeDir()
      http = await startMcpHttpServer()
      const world = makeWorld(dir, NO_MODEL)
      const shared = join(dir, 'shared')
      mkdirSync(shared)
      writeFileSync(
        configFile(world),
        [
          `model:\n  baseUrl: ${NO_MODEL}`,
          'mcpServers:',
          `  everything: { command: node, args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio] }`,
          `  fs: { command: node, args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(shared)}] }`,
          `  web: { type: http, url: "${http.origin}/mcp" }`,
          '',
        ].join('\n'),
      )
      const mark = join(dir, 'proj-started')
      projectServer(world, mark)
      new ProjectTrustStore(world.home).trust(
        world.project,
        Date.now(),
        fingerprintProjectConfig(world.project),
      )
      const [everythingTools, fsTools] = await Promise.all([
        toolCount([EVERYTHING_SERVER, 'stdio']),
        toolCount([FILESYSTEM_SERVER, shared]),
      ])
      expect(everythingTools).toBeGreaterThan(5)

      const listed = await mcp(world, ['list'])
      expect(listed.stderr).toBe('')
      const source = `config ${configFile(world)}`
      expect(listed.stdout.trimEnd().split('\n')).toEqual([
        `everything  connected · ${everythingTools} tools · ${source}`,
        `fs  connected · ${fsTools} tools · ${source}`,
        `web  connected · ${HTTP_TOOLS} tools · ${source}`,
        `proj  connected · ${FIXTURE_TOOLS} tools · project ${join(world.project, '.mcp.json')}`,
      ])
      expect(listed.code).toBe(0)
      expect(readFileSync(mark, 'utf8')).toMatch(/^pid \d+/)

      const json = await mcp(world, ['list', '--json'])
      expect(json.code).toBe(0)
      const rows = JSON.parse(json.stdout) as {
        name: string
        state: string
        tools: number
        source: unknown
      }[]
      expect(rows.map(({ name, state, tools }) => ({ name, state, tools }))).toEqual([
        { name: 'everything', state: 'connected', tools: everythingTools },
        { name: 'fs', state: 'connected', tools: fsTools },
        { name: 'web', state: 'connected', tools: HTTP_TOOLS },
        { name: 'proj', state: 'connected', tools: FIXTURE_TOOLS },
      ])
      expect(rows.at(-1)!.source).toEqual({ kind: 'project', file: join(world.project, '.mcp.json') })
    },
    SERVER_TEST_TIMEOUT_MS * 2,
  )

  it(
    'starts nothing from an untrusted .mcp.json, names a server that cannot start, and exits 1',
    async () => {
      const dir = makeDir()
      const world = makeWorld(
        dir,
        NO_MODEL,
        'mcpServers:\n  broken: { command: dsh-test-no-such-command }\n  quits: { command: node, args: [-e, "console.error(\'cannot open the database\'); process.exit(3)"] }\n',
      )
      const mark = join(dir, 'proj-started')
      projectServer(world, mark)

      const listed = await mcp(world, ['list'])
      const source = `config ${configFile(world)}`
      expect(listed.stdout.trimEnd().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^broken  failed · ${source} — command not found`)),
        `quits  failed · ${source} — the server exited during start-up — cannot open the database`,
        `proj  not loaded: folder not trusted · project ${join(world.project, '.mcp.json')}`,
      ])
      expect(listed.code).toBe(1)
      expect(hasStack(listed.stderr)).toBe(false)
      expect(existsSync(mark)).toBe(false)
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'shows an HTTP server that refuses in one line with its status and a short reason, never the page',
    async () => {
      const refusing = await startRefusingHttpServer()
      try {
        const world = makeWorld(
          makeDir(),
          NO_MODEL,
          [
            'mcpServers:',
            `  page: { type: http, url: "${refusing.origin}/401/mcp" }`,
            `  empty: { type: http, url: "${refusing.origin}/empty/mcp" }`,
            `  gateway: { type: http, url: "${refusing.origin}/502/mcp" }`,
            '',
          ].join('\n'),
        )
        const listed = await mcp(world, ['list'])
        const source = `config ${configFile(world)}`
        const auth =
          'HTTP 401 Unauthorized: authentication required: set headers (e.g. Authorization) for this server in its config'
        expect(listed.stdout.trimEnd().split('\n')).toEqual([
          `page  failed · ${source} — ${auth}`,
          `empty  failed · ${source} — ${auth}`,
          `gateway  failed · ${source} — HTTP 502 Bad Gateway`,
        ])
        expect(listed.code).toBe(1)
      } finally {
        await refusing.close()
      }
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it('says when there are none, and refuses a folder that does not exist in one line', async () => {
    const world = makeWorld(makeDir(), NO_MODEL)
    const empty = await mcp(world, ['list'])
    expect(empty).toMatchObject({ code: 0, stdout: 'no MCP servers (add one with `dsh mcp add`)\n' })
    const missing = await mcp(world, ['list', '--cwd', join(world.project, 'nowhere')])
    expect(missing.code).not.toBe(0)
    expect(expectOneLine(missing.stderr)).toContain('nowhere')
  })
})

describe('dsh mcp add', () => {
  it(
    'writes stdio (args, env), http (url, headers) and sse entries that work, keeping the rest of the file',
    async () => {
      const dir = makeDir()
      http = await startMcpHttpServer()
      const world = makeWorld(dir, NO_MODEL, USER_CONFIG)
      const before = readFileSync(configFile(world), 'utf8')
      const mark = join(dir, 'db-started')

      const stdio = await mcp(world, [
        'add',
        '-e',
        `FIXTURE_MARK=${mark}`,
        '-e',
        'MODE=read-only',
        'db',
        '--',
        'node',
        FIXTURE_SERVER,
        '--read-only',
      ])
      expect(stdio).toMatchObject({
        code: 0,
        stderr: '',
        stdout: `added MCP server db to ${configFile(world)}\n`,
      })
      const remote = await mcp(world, [
        'add',
        '-t',
        'http',
        '-H',
        // Written as typed: ${VAR} is expanded when the server starts, not now.
        'Authorization: Bearer ${DOCS_TOKEN:-none}',
        '-H',
        'X-Team: tools',
        'docs',
        `${http.origin}/mcp`,
      ])
      expect(remote.code).toBe(0)
      expect((await mcp(world, ['add', '--transport', 'sse', 'legacy', `${http.origin}/sse`])).code).toBe(0)

      const after = readFileSync(configFile(world), 'utf8')
      expect(after.startsWith(before)).toBe(true)
      expect(parse(after).mcpServers).toEqual({
        db: {
          command: 'node',
          args: [FIXTURE_SERVER, '--read-only'],
          env: { FIXTURE_MARK: mark, MODE: 'read-only' },
        },
        docs: {
          type: 'http',
          url: `${http.origin}/mcp`,
          headers: { Authorization: 'Bearer ${DOCS_TOKEN:-none}', 'X-Team': 'tools' },
        },
        legacy: { type: 'sse', url: `${http.origin}/sse` },
      })

      // What was written works: every server connects, and the stdio one got its env.
      const listed = await mcp(world, ['list'])
      expect(listed.stdout.trimEnd().split('\n')).toEqual([
        `db  connected · ${FIXTURE_TOOLS} tools · config ${configFile(world)}`,
        `docs  connected · ${HTTP_TOOLS} tools · config ${configFile(world)}`,
        `legacy  connected · ${HTTP_TOOLS} tools · config ${configFile(world)}`,
      ])
      expect(listed.code).toBe(0)
      expect(readFileSync(mark, 'utf8')).toMatch(/^pid \d+/)
      expect(http.requests.some((request) => request.startsWith('GET /sse'))).toBe(true)
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it('refuses a duplicate name or bad input in one line without touching the file', async () => {
    const world = makeWorld(makeDir(), NO_MODEL, USER_CONFIG)
    expect((await mcp(world, ['add', 'db', '--', 'node', 'server.js'])).code).toBe(0)
    const before = readFileSync(configFile(world), 'utf8')
    const refusals: [string[], RegExp][] = [
      [['add', 'two words', 'node'], /invalid server name "two words"/],
      [
        ['add', 'odd__b', 'node'],
        /invalid server name "odd__b": a server name may not hold "__": tool names are mcp__<server>__<tool>/,
      ],
      [['add', '-t', 'websocket', 'x', 'ws://127.0.0.1:1'], /--transport must be stdio, http or sse/],
      [['add', '-t', 'http', 'x', 'not a url'], /url must be an http:\/\/ or https:\/\/ URL/],
      [['add', '-t', 'http', 'docs', 'ftp://x'], /url must be an http:\/\/ or https:\/\/ URL/],
      [['add', '-t', 'sse', 'x', 'ftp://127.0.0.1/sse'], /url must be an http:\/\/ or https:\/\/ URL/],
      [['add', '-e', 'NOVALUE', 'x', 'node'], /--env "NOVALUE": expected NAME=VALUE/],
      [['add', '-H', 'X-A: b', 'x', 'node'], /--header is for http and sse servers/],
      [['add', '-t', 'http', '-e', 'A=1', 'x', 'http://127.0.0.1:1/mcp'], /--env is for stdio servers/],
      [['add', '-t', 'http', 'x', 'http://127.0.0.1:1/mcp', 'extra'], /unexpected arguments after the URL/],
      [['add', '-s', 'team', 'x', 'node'], /--scope must be user or project/],
      [['add', 'x'], /missing required argument/],
    ]
    // What was typed is wrong: exit 2 (docs/cli.md).
    for (const [args, reason] of refusals) {
      const result = await mcp(world, args)
      expect(result.code, args.join(' ')).toBe(2)
      expect(expectOneLine(result.stderr), args.join(' ')).toMatch(reason)
      expect(result.stdout).toBe('')
      expect(readFileSync(configFile(world), 'utf8')).toBe(before)
    }
    // The name is taken in the file: the command failed, exit 1.
    const duplicate = await mcp(world, ['add', 'db', '--', 'node', 'other.js'])
    expect(duplicate.code).toBe(1)
    expect(expectOneLine(duplicate.stderr)).toMatch(/MCP server db already exists in .*config\.yaml/)
    expect(readFileSync(configFile(world), 'utf8')).toBe(before)
  })

  it("docs/mcp.md's header example, typed into a shell, writes ${DOCS_TOKEN} and not the token", async () => {
    const world = makeWorld(makeDir(), NO_MODEL, USER_CONFIG)
    const doc = readFileSync(resolve('docs/mcp.md'), 'utf8')
    const example = doc.split('\n').find((line) => line.startsWith('$ dsh mcp add -t http -H'))
    expect(example).toBeDefined()
    // `dsh` on PATH for the shell: the built CLI.
    const bin = join(makeDir(), 'bin')
    mkdirSync(bin)
    writeFileSync(
      join(bin, 'dsh'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
      {
        mode: 0o755,
      },
    )
    const shell = spawnSync('/bin/sh', ['-c', example!.slice(2)], {
      cwd: world.project,
      env: { ...world.env, PATH: `${bin}:${world.env.PATH}`, DOCS_TOKEN: 'secret-token-value' },
      encoding: 'utf8',
    })
    expect(shell.status, shell.stderr).toBe(0)
    const written = readFileSync(configFile(world), 'utf8')
    expect(written).not.toContain('secret-token-value')
    expect(parse(written).mcpServers.docs.headers).toEqual({ Authorization: 'Bearer ${DOCS_TOKEN}' })
  })

  it('edits the file a symlinked config.yaml points to, and the link stays', async () => {
    const dir = makeDir()
    const world = makeWorld(dir, NO_MODEL, USER_CONFIG)
    const dotfiles = join(dir, 'dotfiles')
    mkdirSync(dotfiles)
    const real = join(dotfiles, 'dsh.yaml')
    renameSync(configFile(world), real)
    symlinkSync(real, configFile(world))
    expect((await mcp(world, ['add', 'db', '--', 'node', 'db.js'])).code).toBe(0)
    expect(lstatSync(configFile(world)).isSymbolicLink()).toBe(true)
    expect(parse(readFileSync(real, 'utf8')).mcpServers).toEqual({ db: { command: 'node', args: ['db.js'] } })
    expect((await mcp(world, ['remove', 'db'])).code).toBe(0)
    expect(lstatSync(configFile(world)).isSymbolicLink()).toBe(true)
    expect(readFileSync(real, 'utf8').endsWith(USER_CONFIG)).toBe(true)
  })

  it("-s project writes the project root's .mcp.json from a subfolder, keeping its other keys", async () => {
    const world = makeWorld(makeDir(), NO_MODEL)
    mkdirSync(join(world.project, '.git'))
    const sub = join(world.project, 'src', 'deep')
    mkdirSync(sub, { recursive: true })
    const file = join(world.project, '.mcp.json')
    writeFileSync(file, JSON.stringify({ note: 'kept', mcpServers: { old: { command: 'old-server' } } }))
    const configBefore = readFileSync(configFile(world), 'utf8')

    const added = await mcp(world, ['add', '-s', 'project', 'fs', '--', 'npx', '-y', 'fs-server', '.'], sub)
    expect(added).toMatchObject({ code: 0, stdout: `added MCP server fs to ${file}\n` })
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      note: 'kept',
      mcpServers: { old: { command: 'old-server' }, fs: { command: 'npx', args: ['-y', 'fs-server', '.'] } },
    })
    const duplicate = await mcp(world, ['add', '-s', 'project', 'old', 'x'], sub)
    expect(expectOneLine(duplicate.stderr)).toBe(`dsh: MCP server old already exists in ${file}`)

    const removed = await mcp(world, ['remove', '-s', 'project', 'old'], sub)
    expect(removed).toMatchObject({ code: 0, stdout: `removed MCP server old from ${file}\n` })
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers).toEqual({
      fs: { command: 'npx', args: ['-y', 'fs-server', '.'] },
    })
    expect(readFileSync(configFile(world), 'utf8')).toBe(configBefore)
  })
})

describe('dsh mcp remove', () => {
  it('deletes the entry and only it; an unknown name is refused in one line', async () => {
    const world = makeWorld(makeDir(), NO_MODEL, USER_CONFIG)
    const original = readFileSync(configFile(world), 'utf8')
    expect((await mcp(world, ['add', 'db', '--', 'node', 'db.js'])).code).toBe(0)
    const withDb = readFileSync(configFile(world), 'utf8')
    expect((await mcp(world, ['add', '-t', 'http', 'docs', 'https://docs.example.test/mcp'])).code).toBe(0)

    const removed = await mcp(world, ['remove', 'docs'])
    expect(removed).toMatchObject({ code: 0, stdout: `removed MCP server docs from ${configFile(world)}\n` })
    expect(readFileSync(configFile(world), 'utf8')).toBe(withDb)

    // A name that names nothing: exit 2 (docs/cli.md).
    const unknown = await mcp(world, ['remove', 'docs'])
    expect(unknown.code).toBe(2)
    expect(expectOneLine(unknown.stderr)).toBe(`dsh: no MCP server docs in ${configFile(world)}`)
    expect(readFileSync(configFile(world), 'utf8')).toBe(withDb)

    // The last server goes with its `mcpServers` key: the file is the user's again, byte for byte.
    expect((await mcp(world, ['remove', 'db'])).code).toBe(0)
    expect(readFileSync(configFile(world), 'utf8')).toBe(original)
  })
})
