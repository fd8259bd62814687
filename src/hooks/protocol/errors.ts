// Codes of the hook seam. A hook's own failure is a value (a HookOutcome with decision
// `error`); these codes tag the warnings a bridge logs so callers can tell them apart.

export const HookErrorCode = {
  /** A settings file could not be read; nothing is registered from it. */
  FileUnreadable: 'HOOK_FILE_UNREADABLE',
  /** A settings file is not JSON or not shaped like a hook map; nothing is registered from it. */
  FileInvalid: 'HOOK_FILE_INVALID',
  /** The bridge config has no usable `files` list. */
  BadConfig: 'HOOK_BAD_CONFIG',
  /** A handler of a type other than `command`; it is skipped. */
  UnsupportedType: 'HOOK_UNSUPPORTED_TYPE',
  /** A handler's `if` is not a permission rule, or sits on an event without tool calls. */
  InvalidIf: 'HOOK_INVALID_IF',
  /** A matcher is not a valid regular expression; it never matches. */
  InvalidMatcher: 'HOOK_INVALID_MATCHER',
  /** A hook's stdout started like JSON but was malformed or wrongly shaped; it is ignored. */
  BadOutput: 'HOOK_BAD_OUTPUT',
  /** A hook failed without blocking: exit code other than 0 and 2, timeout, kill, no shell. */
  HookFailed: 'HOOK_FAILED',
} as const

export type HookErrorCode = (typeof HookErrorCode)[keyof typeof HookErrorCode]
