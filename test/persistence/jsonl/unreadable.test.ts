// Sessions the JSONL backend cannot read: a per-project folder or a log whose mode denies
// this user. Each is one user-facing PERSISTENCE_IO line naming the folder or file, never
// "no sessions" or "unknown session" (which would make `--continue` pick an older one).
// Root reads everything, so the backend runs as `nobody` in a child process.

import { chmodSync, chownSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeAll, describe, expect } from 'vitest'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { itRequires } from '../../support/requires.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { LogBuilder, makeHeader } from '../fixtures.js'
import { ChildWriter, canRunAsNobody, ensureBuilt } from './child-writer.js'

const asNobody = itRequires(canRunAsNobody(), 'root, setpriv and a checkout nobody can read')
const tempDir = useTempDirs('dsh-jsonl-unreadable-')
const children: ChildWriter[] = []

beforeAll(() => ensureBuilt(), 180_000)

afterEach(async () => {
  for (const child of children.splice(0)) await child.kill()
})

/** A root `nobody` owns, holding one stored session `keep1`; resolves with the child and the log's path. */
async function storedAsNobody(): Promise<{ child: ChildWriter; log: string }> {
  const dir = tempDir()
  chmodSync(dir, 0o755)
  const root = join(dir, 'sessions')
  mkdirSync(root)
  chownSync(root, 65534, 65534)
  const child = await ChildWriter.spawn(root, { asNobody: true })
  children.push(child)
  const header = makeHeader('keep1', { cwd: '/work/keep' })
  await child.ok('create', { header })
  await child.ok('append', { id: 'keep1', events: new LogBuilder().completedTurn(0, 'important').events })
  await child.ok('release', { id: 'keep1' })
  const { path } = (await child.ok('locate', { header })) as { path: string }
  return { child, log: path }
}

describe('JSONL sessions this user cannot read', () => {
  asNobody(
    'an unreadable session folder is an error naming it for list, show, resume and prefixes; new sessions go on',
    async () => {
      const { child, log } = await storedAsNobody()
      const bucket = dirname(log)
      chmodSync(bucket, 0o000)
      for (const [op, args] of [
        ['list', {}],
        ['load', { id: 'keep1' }],
        ['open', { id: 'keep1' }],
        ['exists', { id: 'keep1' }],
        ['idsWithPrefix', { prefix: 'keep', limit: 6 }],
      ] as const) {
        const reply = await child.call(op, args)
        expect(reply, op).toMatchObject({ ok: false, code: PersistenceErrorCode.Io })
        expect(reply.message, op).toMatch(new RegExp(`^cannot read session folder ${bucket}: EACCES`))
      }
      // A new session in another folder is still written: only lookups need every folder.
      await child.ok('create', { header: makeHeader('fresh', { cwd: '/work/other' }) })
      await child.ok('append', { id: 'fresh', events: new LogBuilder().completedTurn(0, 'new work').events })
      chmodSync(bucket, 0o700)
      expect(await child.ok('exists', { id: 'keep1' })).toBe(true)
      expect(await child.ok('exists', { id: 'fresh' })).toBe(true)
    },
  )

  asNobody('an unreadable log is an error naming the file, for show and resume', async () => {
    const { child, log } = await storedAsNobody()
    chmodSync(log, 0o000)
    for (const op of ['load', 'open']) {
      const reply = await child.call(op, { id: 'keep1' })
      expect(reply, op).toMatchObject({ ok: false, code: PersistenceErrorCode.Io })
      expect(reply.message, op).toMatch(new RegExp(`^cannot read session file ${log}: EACCES`))
    }
    chmodSync(log, 0o600)
    expect(await child.ok('load', { id: 'keep1' })).toMatchObject({ header: { id: 'keep1' } })
  })
})
