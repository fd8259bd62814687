// Error codes of the hook seam. Hook failures are values (a HookOutcome with decision
// `error`); these codes name the few conditions reported as warnings or thrown.

export const HookErrorCode = {
  /** A hook settings file could not be read. */
  FileUnreadable: 'HOOK_FILE_UNREADABLE',
  /** A hook settings file is not JSON or not shaped like a hook map. */
  FileInvalid: 'HOOK_FILE_INVALID',
  /** A matcher is not a valid regular expression; it never matches. */
  InvalidMatcher: 'HOOK_INVALID_MATCHER',
  /** No shell executor is loaded, so a hook could not run. */
  NoShell: 'HOOK_NO_SHELL',
} as const

export type HookErrorCode = (typeof HookErrorCode)[keyof typeof HookErrorCode]
