// Public surface of usage and cost: the one derivation from the session log, the one
// price table, and the terminal formats front ends use to show them.

export { type CostLimitConfig, costLimitPlugin } from './cost-limit.js'
export {
  deriveUsage,
  type SessionUsage,
  stepTotals,
  turnUsage,
  UsageMeter,
  type UsageReport,
  usageReport,
} from './derive.js'
export { ESTIMATED_NOTE, turnUsageEstimated } from './estimated.js'
export {
  cacheHitPercent,
  formatCost,
  formatTokens,
  formatTokensShort,
  formatUsageCell,
  formatUsageLine,
} from './format.js'
export {
  copyLedger,
  emptyLedger,
  foldUsage,
  LEDGER_SLOTS,
  type LedgerStep,
  ledgerOf,
  priceLedger,
  pricesLedgerExactly,
  type UsageLedger,
} from './ledger.js'
export { parseLedger } from './ledger-schema.js'
export {
  DEFAULT_PRICE_TABLE,
  isPeak,
  type ModelPrices,
  type PeakHours,
  type PriceTable,
  type Rates,
  ratesAt,
  resolvePriceTable,
} from './price-table.js'
export {
  addTotals,
  emptyTotals,
  stepTokens,
  tokensCost,
  type UsageEffect,
  type UsageTotals,
  usageEffect,
} from './totals.js'
