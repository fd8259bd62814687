// Defaults of the context settings that the config schema writes down.

/** The share of the window at which automatic compaction starts (`compaction.threshold`). */
export const DEFAULT_COMPACTION_THRESHOLD = 0.85
