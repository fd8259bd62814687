// The one session id rule, enforced at every entry point (CLI flags, config, stdio,
// ACP) and by every backend: a non-empty, well-formed Unicode string (no lone
// surrogates) without U+0000, at most MAX_SESSION_ID_LENGTH UTF-16 code units.

/**
 * What a sub-agent's id adds to its parent's: `<parent>-sub-<uuid>` (`mintSubagentId` in
 * src/tools/subagent/subagent-tool.ts), so every prefix of a parent matches its sub-agents.
 */
export const SUBAGENT_ID_INFIX = '-sub-'

/** Longest id, in UTF-16 code units: every id is repeated in headers, payloads and paths. */
export const MAX_SESSION_ID_LENGTH = 4096

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Why `id` is not a valid session id, or undefined when it is. */
export function sessionIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string' || id.length === 0) return 'it must be a non-empty string'
  if (id.length > MAX_SESSION_ID_LENGTH) {
    return `it is ${id.length} characters long; the maximum is ${MAX_SESSION_ID_LENGTH}`
  }
  if (id.includes('\u0000')) return 'it contains U+0000 (NUL)'
  if (LONE_SURROGATE.test(id)) return 'it is not well-formed Unicode (a lone surrogate)'
  return undefined
}
