// The model's `ready` and `wait_for` patterns: JavaScript regular expressions (literal text
// when they do not compile), each match bounded in time. A pattern that backtracks (`(a+)+$`)
// would otherwise hold dsh's only thread for hours, deaf to timeouts and signals; V8 stops a
// regular expression run inside a vm context with a timeout.

import { createContext, Script } from 'node:vm'
import { DshError } from '../core/errors.js'
import { TerminalErrorCode } from './errors.js'

/** One match of a model's pattern may take this long; past it the wait ends with an error. */
export const PATTERN_BUDGET_MS = 250

/** A pattern as a regular expression; text that does not compile is matched literally. */
export function compilePattern(source: string): RegExp {
  try {
    return new RegExp(source, 'm')
  } catch {
    return new RegExp(source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'm')
  }
}

interface MatchContext {
  pattern: RegExp | undefined
  text: string
}

// One context for every match: making one costs far more than a match.
let sandbox: { context: MatchContext; script: Script } | undefined

/**
 * Whether `pattern` occurs in `text`, within PATTERN_BUDGET_MS. Throws
 * TERMINAL_PATTERN_TOO_SLOW when the match takes longer (it is stopped then).
 */
export function testPattern(pattern: RegExp, text: string, budgetMs = PATTERN_BUDGET_MS): boolean {
  sandbox ??= {
    context: createContext({ pattern: undefined, text: '' }) as MatchContext,
    script: new Script('pattern.test(text)'),
  }
  const { context, script } = sandbox
  context.pattern = pattern
  context.text = text
  pattern.lastIndex = 0
  try {
    return script.runInContext(context as object, { timeout: budgetMs }) === true
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error
    throw new DshError(
      `the pattern ${JSON.stringify(pattern.source)} took more than ${budgetMs} ms to match ${text.length} characters of output, so the wait was stopped; it backtracks (nested or overlapping repetition such as (a+)+ or (\\w+\\s?)*): use a simpler pattern`,
      TerminalErrorCode.PatternTooSlow,
      { cause: error },
    )
  } finally {
    context.pattern = undefined
    context.text = ''
  }
}
