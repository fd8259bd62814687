// Following a session from another backend instance through LISTEN/NOTIFY: events
// arrive in order, once each, without polling (the poll is set far beyond the test).

import { expect, it } from 'vitest'
import { followSession } from '../../../src/persistence/postgres/index.js'
import type { SessionEvent } from '../../../src/session/types.js'
import { describePostgres, describeSkipReason, useCluster } from '../../support/postgres.js'
import { until } from '../../support/until.js'
import { LogBuilder, makeHeader, plain } from '../fixtures.js'
import { usePostgresBackends } from './backends.js'

describePostgres(`postgres follow${describeSkipReason()}`, () => {
  const pg = useCluster()
  const open = usePostgresBackends(pg)
  const backend = (schema: string) => open({ schema })

  it('delivers committed events from another writer as they are committed', async () => {
    const schema = pg.schema()
    const writer = await backend(schema)
    const reader = await backend(schema)
    const log = new LogBuilder().completedTurn(0, 'one').completedTurn(1, 'two').completedTurn(2, 'three')
    await writer.create(makeHeader('watched'))
    await writer.append('watched', log.events.slice(0, 9))
    await writer.create(makeHeader('other'))

    const seen: SessionEvent[] = []
    const stop = new AbortController()
    const following = followSession(reader.store, 'watched', {
      fromSeq: 4,
      onEvents: (events) => seen.push(...events),
      signal: stop.signal,
      pollMs: 600_000,
    })
    await until(() => seen.length === 5)
    await writer.append('other', new LogBuilder().add('user/message', { text: 'noise' }).events)
    await writer.append('watched', log.events.slice(9, 18))
    await until(() => seen.length === 14)
    await writer.append('watched', log.events.slice(18))
    await until(() => seen.length === 23)
    stop.abort()
    await following
    expect(plain(seen)).toEqual(log.events.slice(4))
  })
})
