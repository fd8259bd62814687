// Public surface of usage and cost: the one derivation from the session log, the one
// price table, and the terminal formats front ends use to show them.

export { type CostLimitConfig, costLimitPlugin } from './cost-limit.js'
export {
  addTotals,
  deriveUsage,
  emptyTotals,
  type SessionUsage,
  stepTokens,
  stepTotals,
  tokensCost,
  turnUsage,
  type UsageEffect,
  UsageMeter,
  type UsageReport,
  type UsageTotals,
  usageEffect,
  usageReport,
} from './derive.js'
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
  type LedgerStep,
  ledgerOf,
  parseLedger,
  priceLedger,
  pricesLedgerExactly,
  type UsageLedger,
} from './ledger.js'
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
