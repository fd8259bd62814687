// The id and title contract of every backend: short id prefixes resolve through
// `resolveSessionId` (exact ids win, a session's prefix is not made ambiguous by its own
// sub-agents, ambiguity names the candidates, short prefixes are unknown), and a rename
// (`session/title` through the store) is what listings show, also after later turns and
// across a reopen.

import { expect, it } from 'vitest'
import { renameStored, resolveSessionId } from '../../src/history/index.js'
import type { SessionPersistence } from '../../src/persistence/persistence.js'
import { LogBuilder, makeHeader } from '../persistence/fixtures.js'

const IDS = [
  '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed',
  '1b9d6bcd-ffff-4b2d-9b5d-ab8dfbbd4bed',
  '6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b',
  'abcdef',
  'abcdefgh-2',
  'café-ünïcode-ß',
]

function turn(n: number, text: string): LogBuilder {
  return new LogBuilder()
    .add('turn/start', { turn: n })
    .add('user/message', { text })
    .add('assistant/message', { message: { content: 'done' } })
    .add('turn/end', { turn: n, reason: 'completed' })
}

async function store(backend: SessionPersistence, id: string, text = `prompt of ${id}`): Promise<void> {
  await backend.create(makeHeader(id, { cwd: '/work/ids' }))
  await backend.append(id, turn(1, text).events)
  await backend.release(id)
}

async function titleOf(backend: SessionPersistence, id: string): Promise<string | undefined> {
  return (await backend.list()).find((summary) => summary.header.id === id)?.title
}

async function refusal(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught as { code?: string; message: string },
  )
  if (!error) throw new Error('expected a refusal')
  return error
}

export function runIdContract(open: () => Promise<SessionPersistence>): void {
  it('resolves unique prefixes of at least 6 characters; exact ids win; ambiguity names the candidates', async () => {
    const backend = await open()
    for (const id of IDS) await store(backend, id)
    expect(await resolveSessionId(backend, '6ec0bd')).toBe(IDS[2])
    expect(await resolveSessionId(backend, '6ec0bd7f-11c0')).toBe(IDS[2])
    expect(await resolveSessionId(backend, IDS[0]!)).toBe(IDS[0])
    expect(await resolveSessionId(backend, 'café-ü')).toBe(IDS[5])
    // 'abcdef' is an id and a prefix of another: the exact id wins.
    expect(await resolveSessionId(backend, 'abcdef')).toBe('abcdef')
    expect(await resolveSessionId(backend, 'abcdefg')).toBe('abcdefgh-2')

    const ambiguous = await refusal(resolveSessionId(backend, '1b9d6bcd'))
    expect(ambiguous.code).toBe('HISTORY_AMBIGUOUS_ID')
    expect(ambiguous.message).toBe(
      `session id prefix "1b9d6bcd" is ambiguous: ${IDS[0]}, ${IDS[1]} (give more characters)`,
    )
    const unknown = await refusal(resolveSessionId(backend, '6ec0bd-nope'))
    expect(unknown).toMatchObject({ code: 'PERSISTENCE_NOT_FOUND', message: 'unknown session "6ec0bd-nope"' })
    // Shorter than 6 and not an id: unknown, even though it is a unique prefix.
    expect((await refusal(resolveSessionId(backend, '6ec0b'))).code).toBe('PERSISTENCE_NOT_FOUND')
    expect(await backend.idsWithPrefix('1b9d6bcd-', 10)).toHaveLength(2)
    expect(await backend.idsWithPrefix('1b9d6bcd-', 1)).toHaveLength(1)
  })

  it('a prefix of a session that ran sub-agents names it; one reaching into `-sub-` names a sub-agent', async () => {
    const backend = await open()
    const parent = '54edb73d-ccb7-4e4a-aac3-ce5d994d18f2'
    // More sub-agents than the resolver asks candidates for, one with a sub-agent of its own.
    const subs = Array.from({ length: 8 }, (_, i) => `${parent}-sub-${i}0b1d2c3-aaaa-4bbb-8ccc-000000000000`)
    const nested = `${subs[3]}-sub-ffffffff-aaaa-4bbb-8ccc-000000000000`
    for (const id of [parent, ...subs, nested]) await store(backend, id)
    for (const length of [6, 8, 35])
      expect(await resolveSessionId(backend, parent.slice(0, length))).toBe(parent)
    expect(await resolveSessionId(backend, `${parent}-sub-3`)).toBe(subs[3])
    expect(await resolveSessionId(backend, subs[3]!.slice(0, -4))).toBe(subs[3])
    const subsOnly = await refusal(resolveSessionId(backend, `${parent}-su`))
    expect(subsOnly.code).toBe('HISTORY_AMBIGUOUS_ID')
    const named = /is ambiguous: (.*), and more \(give more characters\)$/.exec(subsOnly.message)?.[1]
    expect(named?.split(', ').filter((id) => id.startsWith(`${parent}-sub-`))).toHaveLength(5)
    expect(await backend.idsWithPrefix(parent.slice(0, 8), 10, `${parent}-sub-`)).toEqual([parent])

    // Another session the prefix matches, sorting after every sub-agent: ambiguous again.
    await store(backend, `${parent}x`)
    const two = await refusal(resolveSessionId(backend, parent.slice(0, 8)))
    expect(two.code).toBe('HISTORY_AMBIGUOUS_ID')
    expect((await backend.idsWithPrefix(parent.slice(0, 8), 10, `${parent}-sub-`)).sort()).toEqual([
      parent,
      `${parent}x`,
    ])

    // Ids that only look like sub-agents' (no session `feature` exists) stay ambiguous.
    await store(backend, 'feature-sub-one')
    await store(backend, 'feature-sub-two')
    expect((await refusal(resolveSessionId(backend, 'featur'))).code).toBe('HISTORY_AMBIGUOUS_ID')
  })

  it('lists a renamed title, after later turns too, and a fork keeps its own', async () => {
    const backend = await open()
    await store(backend, 'rename-me-1', 'the first prompt')
    expect(await titleOf(backend, 'rename-me-1')).toBe('the first prompt')
    await renameStored(backend, 'rename-me-1', '  Slug   bug\nfix ')
    expect(await titleOf(backend, 'rename-me-1')).toBe('Slug bug fix')

    // More turns after the rename: still the given title.
    const { events } = await backend.open('rename-me-1')
    const more = turn(2, 'another prompt').events.map((event, i) => ({ ...event, seq: events.length + i }))
    await backend.append('rename-me-1', more)
    await backend.release('rename-me-1')
    expect(await titleOf(backend, 'rename-me-1')).toBe('Slug bug fix')

    // Renamed again: the latest wins.
    await renameStored(backend, 'rename-me-1', 'Second name')
    expect(await titleOf(backend, 'rename-me-1')).toBe('Second name')
    const loaded = await backend.load('rename-me-1')
    expect(
      loaded.events.filter((event) => event.type === 'session/title').map((event) => event.data),
    ).toEqual([
      { title: 'Slug bug fix', source: 'user' },
      { title: 'Second name', source: 'user' },
    ])

    // A fork seeded with the renamed log: its seed's title is not its own.
    const seed = loaded.events
    await backend.create(
      makeHeader('rename-fork', { cwd: '/work/ids', parentSession: 'rename-me-1', seedLength: seed.length }),
    )
    const own = turn(3, 'fork prompt').events.map((event, i) => ({ ...event, seq: seed.length + i }))
    await backend.append('rename-fork', [...seed, ...own])
    await backend.release('rename-fork')
    expect(await titleOf(backend, 'rename-fork')).toBe('fork prompt')
  })

  it('refuses an empty or multi-control title and an unknown session, writing nothing', async () => {
    const backend = await open()
    await store(backend, 'rename-me-2', 'kept prompt')
    expect(await refusal(renameStored(backend, 'rename-me-2', '   '))).toMatchObject({
      code: 'HISTORY_INVALID_TITLE',
      message: 'the title is empty',
    })
    expect((await refusal(renameStored(backend, 'rename-me-2', 'bell\u0007'))).code).toBe(
      'HISTORY_INVALID_TITLE',
    )
    expect((await refusal(renameStored(backend, 'no-such-session', 'x'))).code).toBe('PERSISTENCE_NOT_FOUND')
    expect(await titleOf(backend, 'rename-me-2')).toBe('kept prompt')
    expect((await backend.load('rename-me-2')).events).toHaveLength(4)
  })
}
