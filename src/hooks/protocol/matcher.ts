// Matchers per dialect. Claude Code: empty or `*` matches all, names made of letters, digits
// and `_` separated by `|` or `,` (whitespace around them ignored) are exact names, anything
// else a regex. Codex: always an unanchored regex.

import { HookErrorCode } from './errors.js'
import type { HookDialectName, HookWarn } from './types.js'

/** Answers whether any of the candidate names (e.g. the dsh and the dialect tool name) matches. */
export type CompiledMatcher = (candidates: readonly string[]) => boolean

const EXACT_NAMES = /^[A-Za-z0-9_|,\s]+$/

const matchAll: CompiledMatcher = () => true
const matchNone: CompiledMatcher = () => false

/** Compiles a matcher once; an invalid regex is a warning and never matches. */
export function compileMatcher(
  matcher: string | undefined,
  dialect: HookDialectName,
  warn: HookWarn,
): CompiledMatcher {
  if (matcher === undefined || matcher.trim() === '' || matcher.trim() === '*') return matchAll
  if (dialect === 'claude-code' && EXACT_NAMES.test(matcher)) {
    const names = new Set(
      matcher
        .split(/[|,]/)
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    )
    return (candidates) => candidates.some((candidate) => names.has(candidate))
  }
  let pattern: RegExp
  try {
    pattern = new RegExp(matcher)
  } catch (error) {
    warn(
      `hook matcher ${JSON.stringify(matcher)} is not a valid regular expression; it never matches (${String(error)})`,
      HookErrorCode.InvalidMatcher,
    )
    return matchNone
  }
  return (candidates) => candidates.some((candidate) => pattern.test(candidate))
}
