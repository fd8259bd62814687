// Under the sandbox the file tools see what bash sees: the harness home and the session
// store are refused — directly, through a symlink the sandboxed bash just made, and in
// results of walks — in every permission mode but bypassPermissions (issue 24, item 3).

import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import type { AgentHandle } from '../../../src/agent/index.js'
import type { Harness } from '../../../src/harness/compose.js'
import type { Script } from '../../../src/llm/index.js'
import type { PermissionMode } from '../../../src/permissions/index.js'
import { useTestHarnesses } from '../../support/harness.js'
import { itRequires } from '../../support/requires.js'
import { useTempDirs } from '../../support/temp-dir.js'

const it = itRequires(existsSync('/usr/bin/bwrap'), 'bubblewrap (/usr/bin/bwrap)')
const tempDir = useTempDirs('dsh-fs-hidden-')
const startTestHarness = useTestHarnesses()

const REFUSED = /^refused: .* dsh's own storage/
const SECRET = 'other-session-secret-words'

interface World {
  harness: Harness
  home: string
  project: string
  otherLog: string
  agent: AgentHandle
  tool(name: string, args: Record<string, unknown>): Promise<{ content: string; isError?: boolean }>
}

/** A sandboxed harness whose home holds another session's log with SECRET in it. */
async function world(
  options: { script?: Script; config?: (project: string) => Record<string, unknown> } = {},
): Promise<World> {
  const parent = tempDir()
  const home = join(parent, 'home')
  const project = join(parent, 'project')
  const config = options.config?.(project) ?? {}
  mkdirSync(join(project, '.git'), { recursive: true })
  writeFileSync(join(project, 'notes.txt'), `project words ${SECRET.slice(0, 5)}\n`)
  const test = await startTestHarness({
    home,
    script: [{ text: 'the other session' }, ...(options.script ?? [])],
    config: { sandbox: 'workspace-write', ...config },
  })
  const { harness } = test
  const other = await harness.agents.create({ sessionId: 'other-session', meta: { cwd: tempDir() } })
  expect((await other.prompt(SECRET)).reason).toBe('completed')
  await harness.sessions.flush(other.session)
  const located = harness.ctx.get('sessionPersistence')!.locate(other.session.header)
  const otherLog = located?.kind === 'jsonl' ? located.path : (config.persistence as { file: string }).file
  if (located?.kind === 'jsonl') expect(readFileSync(otherLog, 'utf8')).toContain(SECRET)
  const agent = await harness.agents.create({ sessionId: 'this-session', meta: { cwd: project } })
  let calls = 0
  const tool = (name: string, args: Record<string, unknown>) =>
    harness.ctx
      .get('tools')!
      .run(name, JSON.stringify(args), { agent, callId: `c${++calls}`, signal: new AbortController().signal })
  return { harness, home, project, otherLog, agent, tool }
}

function setMode(w: World, mode: PermissionMode): void {
  w.harness.ctx.get('permissions')!.setMode(w.agent, mode)
}

describe('file tools under the sandbox', () => {
  it('refuse the harness home and symlinks into it in every mode but bypass, and still work on the project', async () => {
    const w = await world()
    // The symlinks a sandboxed command could make (bash sees a tmpfs there, but may link to it).
    symlinkSync(w.otherLog, join(w.project, 'log-link'))
    symlinkSync(w.home, join(w.project, 'home-link'))
    symlinkSync(join(w.home, '..'), join(w.project, 'parent-link'))
    for (const mode of ['auto', 'default', 'acceptEdits', 'plan'] as const) {
      setMode(w, mode)
      for (const path of [w.otherLog, 'log-link', join('home-link', 'config.yaml')]) {
        const read = await w.tool('read', { file_path: path })
        expect(read.isError, `${mode} read ${path}`).toBe(true)
        expect(read.content).toMatch(REFUSED)
      }
      for (const [name, args] of [
        ['grep', { pattern: SECRET, path: w.home }],
        ['grep', { pattern: SECRET, path: 'log-link' }],
        ['glob', { pattern: '**', path: 'home-link' }],
        ['ls', { path: join(w.home, 'sessions') }],
        ['ls', { path: 'home-link' }],
      ] as const) {
        const result = await w.tool(name, args)
        expect(result.content, `${mode} ${name} ${JSON.stringify(args)}`).toMatch(REFUSED)
        expect(result.isError).toBe(true)
      }
      // A walk from a folder that holds the home (and links into it) returns nothing from it.
      const grep = await w.tool('grep', { pattern: 'other-session', path: join(w.home, '..') })
      expect(grep.content).not.toContain('sessions')
      const glob = await w.tool('glob', { pattern: '**/*.jsonl', path: join(w.home, '..') })
      expect(glob.content).toMatch(/^No files match/)
      // Also when the walk starts at a symlink to such a folder.
      const linked = await w.tool('grep', { pattern: SECRET, path: 'parent-link' })
      expect(linked.content, mode).toMatch(/^No matches found/)
      const linkedGlob = await w.tool('glob', { pattern: '**/*.jsonl', path: 'parent-link' })
      expect(linkedGlob.content, mode).toMatch(/^No files match/)
      // The project itself is untouched by the rule.
      expect((await w.tool('read', { file_path: 'notes.txt' })).content).toContain('project words')
      expect((await w.tool('grep', { pattern: 'project', path: '.' })).content).toContain('notes.txt')
      expect((await w.tool('glob', { pattern: '*.txt' })).content).toContain('notes.txt')
    }
    for (const mode of ['auto', 'default', 'acceptEdits'] as const) {
      setMode(w, mode)
      const config = await w.tool('write', {
        file_path: join(w.home, 'config.yaml'),
        content: 'sandbox: off\n',
      })
      expect(config.content, mode).toMatch(REFUSED)
      const viaLink = await w.tool('write', { file_path: join('home-link', 'trust.json'), content: '{}' })
      expect(viaLink.content, mode).toMatch(REFUSED)
      const edit = await w.tool('edit', { file_path: 'log-link', old_string: SECRET, new_string: 'x' })
      expect(edit.content, mode).toMatch(REFUSED)
    }
    expect(existsSync(join(w.home, 'config.yaml'))).toBe(false)
    setMode(w, 'auto')
    expect((await w.tool('write', { file_path: 'new.txt', content: 'ok\n' })).isError).toBeUndefined()
    expect(readFileSync(join(w.project, 'new.txt'), 'utf8')).toBe('ok\n')

    // bypassPermissions: the user took the guard off.
    setMode(w, 'bypassPermissions')
    expect((await w.tool('read', { file_path: 'log-link' })).content).toContain(SECRET)
  })

  it('the code-intelligence tools refuse the harness home as read does', async () => {
    // No server is started: the refusal comes before any server is chosen.
    const w = await world({ config: () => ({ lsp: {} }) })
    symlinkSync(w.otherLog, join(w.project, 'log-link'))
    for (const path of [w.otherLog, 'log-link']) {
      for (const [name, args] of [
        ['lsp_diagnostics', { file_path: path }],
        ['lsp_definition', { file_path: path, symbol: SECRET }],
        ['lsp_references', { file_path: path, line: 1, column: 1 }],
        ['lsp_hover', { file_path: path, line: 1 }],
        ['lsp_symbols', { file_path: path }],
      ] as const) {
        const result = await w.tool(name, args)
        expect(result.content, `${name} ${path}`).toMatch(REFUSED)
        expect(result.isError).toBe(true)
      }
    }
  })

  it("reads the session's own log and spill folder (as bash may), but never writes them", async () => {
    const w = await world()
    await w.harness.sessions.flush(w.agent.session)
    const own = w.harness.ctx.get('sessionPersistence')!.locate(w.agent.session.header)!.path
    expect((await w.tool('read', { file_path: own })).content).toContain('this-session')
    const spill = w.harness.ctx.get('spill')!.ensureDir(w.agent.session.id)
    writeFileSync(join(spill, 'out.txt'), 'spilled\n')
    expect((await w.tool('read', { file_path: join(spill, 'out.txt') })).content).toContain('spilled')
    // A link in the own spill folder to another session's log stays hidden.
    symlinkSync(w.otherLog, join(spill, 'other.jsonl'))
    expect((await w.tool('read', { file_path: join(spill, 'other.jsonl') })).content).toMatch(REFUSED)
    expect((await w.tool('write', { file_path: join(spill, 'out.txt'), content: 'x' })).content).toMatch(
      REFUSED,
    )
  })

  it('a symlink made by the sandboxed bash in a real turn does not open the home to read', async () => {
    let otherLog = ''
    const w = await world({
      script: [
        () => ({
          toolCalls: [{ name: 'bash', arguments: { command: `ln -s ${otherLog} planted && echo made` } }],
        }),
        () => ({ toolCalls: [{ name: 'read', arguments: { file_path: 'planted' } }] }),
        { text: 'done' },
      ],
    })
    otherLog = w.otherLog
    expect((await w.agent.prompt('go')).reason).toBe('completed')
    const results = w.agent.session.events
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.data as { content: string; isError?: boolean })
    expect(results[0]!.content).toBe('made')
    expect(results[1]!.isError).toBe(true)
    expect(results[1]!.content).toMatch(REFUSED)
    expect(results[1]!.content).not.toContain(SECRET)
  })

  it("refuse the host's /proc, where dsh's own environment holds its API key", async () => {
    const key = 'sk-proc-environ-check-1234567890'
    process.env.DSH_TEST_PROC_KEY = key
    try {
      const w = await world()
      symlinkSync('/proc/self', join(w.project, 'proc-link'))
      for (const path of ['/proc/self/environ', `/proc/${process.pid}/environ`, 'proc-link/environ']) {
        const read = await w.tool('read', { file_path: path })
        expect(read.isError, path).toBe(true)
        expect(read.content).toMatch(/^refused: .* the host's \/proc/)
        expect(read.content).not.toContain(key)
      }
      const grep = await w.tool('grep', {
        pattern: 'PROC_KEY',
        path: '/proc/self/environ',
        output_mode: 'content',
      })
      expect(grep.isError).toBe(true)
      expect(grep.content).not.toContain(key)
      // A sandboxed command sees its own PID namespace: dsh is not in it.
      const bash = await w.tool('bash', {
        command: `cat /proc/${process.pid}/environ 2>/dev/null | tr '\\0' '\\n' | grep -c PROC_KEY`,
      })
      expect(bash.content).toMatch(/^0\n/)
    } finally {
      delete process.env.DSH_TEST_PROC_KEY
    }
  })

  it('hide a SQLite session store configured outside the home', async () => {
    // Inside the writable project, so only the hiding stands between bash and the store.
    let store = ''
    const w = await world({
      config: (project) => {
        store = join(project, 'store', 'sessions.db')
        return { persistence: { backend: 'sqlite', file: store } }
      },
    })
    symlinkSync(store, join(w.project, 'db-link'))
    for (const path of [store, `${store}-wal`, 'db-link']) {
      const read = await w.tool('read', { file_path: path })
      expect(read.content, path).toMatch(REFUSED)
    }
    // A walk over the folder that holds it finds nothing in the store's files.
    const grep = await w.tool('grep', { pattern: SECRET, path: join(store, '..') })
    expect(grep.content).toMatch(/^No matches found/)
    // bash sees the same: /dev/null is mounted over the database and its WAL.
    const bash = await w.tool('bash', {
      command: `cat ${store} ${store}-wal 2>/dev/null | grep -c ${SECRET}`,
    })
    expect(bash.content).toMatch(/^0\n/)
  })
})
