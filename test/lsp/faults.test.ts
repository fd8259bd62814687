// Faults with a small fake server (real processes, real pipes): a crash is restarted with
// backoff and said once; a server that keeps crashing stays down after maxRestarts; one that
// hangs on initialize is given up on and killed; malformed output is logged and ignored;
// a missing server is a one-line note; after the harness stops no server process is left.

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_LSP_SETTINGS } from '../../src/lsp/index.js'
import { LspManager } from '../../src/lsp/manager.js'
import { type FakeLspMode, fakeLspServer } from '../support/fake-lsp.js'
import { useTestHarnesses } from '../support/harness.js'
import { groupGone, liveGroupMembers } from '../support/processes.js'
import { useTempDirs } from '../support/temp-dir.js'
import { until } from '../support/until.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-lsp-faults-')

async function withFake(mode: FakeLspMode, settings: Record<string, unknown> = {}) {
  const dir = tempDir()
  const fake = fakeLspServer(dir, mode)
  const file = join(dir, 'a.fake')
  writeFileSync(file, 'fine\nBAD here\n')
  const test = await start({
    config: {
      lsp: { servers: { fake: fake.entry }, diagnosticsWaitMs: 60_000, diagnosticsSettleMs: 50, ...settings },
    },
  })
  const lsp = test.harness.ctx.lsp
  return { dir, file, lsp, test, pid: () => Number(readFileSync(fake.pidFile, 'utf8')) }
}

describe('lsp faults', { timeout: 120_000 }, () => {
  it('a crashed server is restarted with backoff, and the next answer says so once', async () => {
    const { dir, file, lsp } = await withFake('crash-once')
    const first = await lsp.fileDiagnostics(file, dir)
    expect(first).toMatchObject({ ok: false })
    expect(first.ok === false && first.note).toMatch(
      /^fake \(.*\) stopped while checking; it is being restarted$/,
    )
    await until(
      () => lsp.status()[0]?.state === 'running' && lsp.status()[0]?.restarts === 1,
      60_000,
      'restart',
    )
    const second = await lsp.fileDiagnostics(file, dir)
    expect(second).toMatchObject({
      ok: true,
      notes: ['fake crashed (exited with code 3) and was restarted (1 of at most 3)'],
      value: [{ path: file, line: 2, column: 1, severity: 'error', message: 'BAD is not allowed' }],
    })
    const third = await lsp.fileDiagnostics(file, dir)
    expect(third).toMatchObject({ ok: true, notes: [] })
  })

  it('a server that keeps crashing stays down after maxRestarts, with its last error', async () => {
    const { dir, file, lsp } = await withFake('crash-always', { maxRestarts: 1 })
    await lsp.fileDiagnostics(file, dir)
    await until(
      () => lsp.status()[0]?.restarts === 1 && lsp.status()[0]?.state === 'running',
      60_000,
      'restart',
    )
    await lsp.fileDiagnostics(file, dir)
    await until(() => lsp.status()[0]?.state === 'failed', 60_000, 'failed state')
    expect(lsp.status()[0]?.lastError).toBe('crashed (exited with code 3); gave up after 1 restarts')
    const answer = await lsp.fileDiagnostics(file, dir)
    expect(answer.ok === false && answer.note).toContain(
      'is not available: crashed (exited with code 3); gave up',
    )
  })

  it('a server that crashes during initialize is restarted like any crash, and says how it ended', async () => {
    const { dir, file, lsp } = await withFake('crash-init-once')
    const first = await lsp.fileDiagnostics(file, dir)
    expect(first.ok === false && first.note).toMatch(
      /^fake \(.*\) is not available: crashed during initialize \(exited with code 3; last stderr line: fake: cannot load the workspace\); it is being restarted$/,
    )
    await until(
      () => lsp.status()[0]?.state === 'running' && lsp.status()[0]?.restarts === 1,
      60_000,
      'restart',
    )
    const second = await lsp.fileDiagnostics(file, dir)
    expect(second).toMatchObject({
      ok: true,
      notes: [
        'fake crashed during initialize (exited with code 3; last stderr line: fake: cannot load the workspace) and was restarted (1 of at most 3)',
      ],
      value: [{ path: file, line: 2, column: 1, message: 'BAD is not allowed' }],
    })
  })

  it('a server that always crashes during initialize stays down after maxRestarts', async () => {
    const { dir, file, lsp } = await withFake('crash-init', { maxRestarts: 1 })
    await lsp.fileDiagnostics(file, dir)
    await until(() => lsp.status()[0]?.state === 'failed', 60_000, 'failed state')
    const ended =
      'crashed during initialize (exited with code 3; last stderr line: fake: cannot load the workspace)'
    expect(lsp.status()[0]).toMatchObject({ restarts: 1, lastError: `${ended}; gave up after 1 restarts` })
    const answer = await lsp.fileDiagnostics(file, dir)
    expect(answer.ok === false && answer.note).toContain(`is not available: ${ended}; gave up`)
  })

  it('a request the server dies on says how it ended, not the library words', async () => {
    const { dir, file, lsp } = await withFake('crash-always', { maxRestarts: 0 })
    const answer = await lsp.hover(file, dir, { line: 1, character: 0 })
    expect(answer).toEqual({ ok: false, note: 'fake: fake exited (exited with code 3)', repeated: false })
  })

  it('a server that hangs on initialize is given up on after the timeout and killed', async () => {
    const { dir, file, lsp, pid } = await withFake('hang', { initializeTimeoutMs: 500 })
    const answer = await lsp.fileDiagnostics(file, dir)
    expect(answer).toMatchObject({ ok: false })
    expect(answer.ok === false && answer.note).toContain('fake did not answer initialize within 500 ms')
    expect(lsp.status()[0]).toMatchObject({
      state: 'failed',
      lastError: 'fake did not answer initialize within 500 ms',
    })
    await groupGone(pid())
  })

  it('malformed output is logged and ignored; the server keeps working; stop leaves nothing', async () => {
    const { dir, file, lsp, test, pid } = await withFake('garbage')
    const answer = await lsp.fileDiagnostics(file, dir)
    expect(answer).toMatchObject({ ok: true, value: [{ line: 2, message: 'BAD is not allowed' }] })
    const log = readFileSync(join(test.home, 'logs', 'lsp', 'fake.log'), 'utf8')
    expect(log).toContain('ignored malformed output')
    const server = pid()
    expect(liveGroupMembers(server)).toEqual([server])
    await test.harness.dispose()
    await groupGone(server)
  })

  it('a missing server is a one-line note with the install command, said once', async () => {
    const manager = new LspManager({
      settings: DEFAULT_LSP_SETTINGS,
      specs: [
        {
          id: 'gopls',
          command: 'dsh-no-such-gopls',
          args: [],
          extensions: ['go'],
          rootMarkers: ['go.mod'],
          env: {},
          install: 'go install golang.org/x/tools/gopls@latest',
        },
      ],
    })
    const dir = tempDir()
    expect(await manager.lookup(join(dir, 'main.go'), dir)).toEqual({
      kind: 'none',
      note: 'gopls: dsh-no-such-gopls is not installed; install it with: go install golang.org/x/tools/gopls@latest',
      repeated: false,
    })
    expect(await manager.lookup(join(dir, 'other.go'), dir)).toMatchObject({ kind: 'none', repeated: true })
    expect(await manager.lookup(join(dir, 'notes.xyz'), dir)).toEqual({
      kind: 'none',
      note: 'no language server for .xyz',
      repeated: false,
    })
    await manager.stop()
  })
})
