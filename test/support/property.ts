// Property tests with a known seed. Every run picks one seed (DSH_PROPERTY_SEED=<n> replays
// a run) and every fast-check property in the file uses it; when a test fails, the seed and
// the command to replay it are printed, so a failure found once is never lost.
// Import `fc` from here instead of from 'fast-check'.

import fc from 'fast-check'
import { beforeEach } from 'vitest'

function chooseSeed(): number {
  const given = process.env.DSH_PROPERTY_SEED
  if (given === undefined || given === '') return (Date.now() ^ (process.pid << 16)) | 0
  const seed = Number(given)
  if (!Number.isInteger(seed))
    throw new Error(`DSH_PROPERTY_SEED must be an integer, got ${JSON.stringify(given)}`)
  return seed
}

export const PROPERTY_SEED = chooseSeed()
fc.configureGlobal({ seed: PROPERTY_SEED })

beforeEach((context) => {
  context.onTestFailed(() => {
    console.error(
      `property seed of this run: ${PROPERTY_SEED} (replay: DSH_PROPERTY_SEED=${PROPERTY_SEED} npx vitest run ${context.task.file.name})`,
    )
  })
})

export { fc }
