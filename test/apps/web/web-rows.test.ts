// The sessions page's rows: tokens and cost priced from each summary's usage ledger, the
// same as deriving from the whole log, without loading any log; a search loads only the
// logs whose row fields (id, title, folder) do not answer it, for their message text.

import { expect, it } from 'vitest'
import { SessionRows } from '../../../src/apps/web/rows.js'
import type { SessionPersistence } from '../../../src/persistence/index.js'
import { DEFAULT_PRICE_TABLE, deriveUsage } from '../../../src/usage/index.js'
import { LogBuilder, makeHeader } from '../../persistence/fixtures.js'
import { useTestHarnesses } from '../../support/harness.js'

const start = useTestHarnesses()

it('prices rows from the summaries without loading a log; a search loads only rows it must', async () => {
  const { harness } = await start()
  const persistence = harness.ctx.get('sessionPersistence') as SessionPersistence
  const logs = {
    cheap: new LogBuilder().paidTurn(1, 'a small question', 'deepseek-flash', 1_000),
    dear: new LogBuilder()
      .paidTurn(1, 'a big question', 'deepseek-v4-pro', 90_000)
      .paidTurn(2, 'needle in the second prompt', 'deepseek-flash', 5_000),
  }
  for (const [id, log] of Object.entries(logs)) {
    await persistence.create(makeHeader(id, { cwd: harness.config.dshHome }))
    await persistence.append(id, log.events)
    await persistence.release(id)
  }
  let loads = 0
  const load = persistence.load.bind(persistence)
  persistence.load = (id) => {
    loads += 1
    return load(id)
  }

  const rows = new SessionRows(harness)
  const listed = await rows.list('', () => undefined)
  expect(loads).toBe(0)
  expect(listed.map((row) => row.id).sort()).toEqual(['cheap', 'dear'])
  for (const row of listed) {
    const derived = deriveUsage(logs[row.id as keyof typeof logs].events, DEFAULT_PRICE_TABLE).session
    expect(row.tokens, row.id).toBe(derived.inputTokens + derived.outputTokens)
    expect(row.cost, row.id).toBe(derived.cost)
  }
  // A search: 'dear' is answered by its title, only 'cheap' is read for its message text.
  expect((await rows.list('big question', () => undefined)).map((row) => row.id)).toEqual(['dear'])
  expect(loads).toBe(1)
  // Only the second prompt holds this: 'dear' is read now ('cheap' is cached).
  expect((await rows.list('needle', () => undefined)).map((row) => row.id)).toEqual(['dear'])
  expect(loads).toBe(2)
})
