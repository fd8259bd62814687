// Public surface of the composition root.

export type { Harness, HarnessOptions } from './compose.js'
export { createHarness } from './compose.js'
