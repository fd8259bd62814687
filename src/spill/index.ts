// Public surface of the spill store: where long tool output lives with its session.

import type { SpillStore } from './store.js'

export type { SpillStoreConfig } from './store.js'
export { removeSpill, SPILL_FOLDER, SpillStore, spillDirFor } from './store.js'

declare module 'cordis' {
  interface Context {
    spill: SpillStore
  }
}
