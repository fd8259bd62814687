// Validation of a stored usage ledger (a log line's field, a database column): a value that
// is not one is refused, and the caller folds the ledger again from the events.

import { z } from 'zod'
import { lazySchema } from '../core/lazy-schema.js'
import { LEDGER_SLOTS, type UsageLedger } from './ledger.js'

const ledgerSchema = lazySchema(() => {
  const count = z.number().int().nonnegative()
  const stepsSchema = z.array(
    z.tuple([
      z.string().nullable(),
      z
        .number()
        .int()
        .min(0)
        .max(LEDGER_SLOTS - 1),
      count,
      count,
      count,
      count,
      count,
    ]),
  )
  const chargesSchema = z.array(z.tuple([z.string(), z.number()]))
  return z
    .object({
      model: z.string().optional(),
      steps: stepsSchema,
      charges: chargesSchema,
      inherited: z.object({ steps: stepsSchema, charges: chargesSchema }).strict().optional(),
    })
    .strict()
})

/** A stored ledger (from a log line or a database column), or undefined when it is not one. */
export function parseLedger(value: unknown): UsageLedger | undefined {
  const parsed = ledgerSchema().safeParse(value)
  if (!parsed.success) return undefined
  const ledger: UsageLedger = { steps: parsed.data.steps, charges: parsed.data.charges }
  if (parsed.data.model !== undefined) ledger.model = parsed.data.model
  if (parsed.data.inherited !== undefined) ledger.inherited = parsed.data.inherited
  return ledger
}
