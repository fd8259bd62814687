// The sessions page's rows: tokens and cost priced from each summary's usage ledger, the
// same as deriving from the whole log, without loading any log; a search keeps rows whose
// fields (id, title, folder) contain it and those the history service finds.

import { expect, it } from 'vitest'
import { SessionRows } from '../../../src/apps/web/rows.js'
import type { SessionPersistence } from '../../../src/persistence/index.js'
import { DEFAULT_PRICE_TABLE, deriveUsage } from '../../../src/usage/index.js'
import { LogBuilder, makeHeader } from '../../persistence/fixtures.js'
import { useTestHarnesses } from '../../support/harness.js'

const start = useTestHarnesses()

it('prices rows from the summaries without loading a log; a search uses the history service', async () => {
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
  const ids = async (query: string) => (await rows.list(query, () => undefined)).map((row) => row.id)
  // By the title (the first prompt), and by words of a later prompt only the service finds.
  expect(await ids('big question')).toEqual(['dear'])
  expect(await ids('needle')).toEqual(['dear'])
  expect(await ids('small')).toEqual(['cheap'])
  expect(await ids('nowhere-at-all')).toEqual([])
  // A query the service refuses matches by the row fields alone, never an error.
  expect(await ids('"')).toEqual([])
})
