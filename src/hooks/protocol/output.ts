// Hook output: exit 2 blocks with stderr as the reason; exit 0 with a JSON object on
// stdout is parsed for decisions and context; any other exit is a non-blocking error.

import * as z from 'zod'
import { lazySchema } from '../../core/lazy-schema.js'
import type { HookOutcome, HookRun } from './types.js'

/** Longest reason or context text (characters) passed on to the model. */
export const MAX_HOOK_TEXT_CHARS = 10_000

const hookOutputSchema = lazySchema(() =>
  z.looseObject({
    continue: z.boolean().optional(),
    stopReason: z.string().optional(),
    suppressOutput: z.boolean().optional(),
    systemMessage: z.string().optional(),
    decision: z.enum(['approve', 'block']).optional(),
    reason: z.string().optional(),
    hookSpecificOutput: z
      .looseObject({
        hookEventName: z.string().optional(),
        permissionDecision: z.enum(['allow', 'deny', 'ask', 'defer']).optional(),
        permissionDecisionReason: z.string().optional(),
        additionalContext: z.string().optional(),
        updatedInput: z.record(z.string(), z.unknown()).optional(),
        /** PermissionRequest: the answer to the permission prompt. */
        decision: z
          .looseObject({
            behavior: z.enum(['allow', 'deny']),
            updatedInput: z.record(z.string(), z.unknown()).optional(),
            message: z.string().optional(),
          })
          .optional(),
      })
      .optional(),
  }),
)

export type HookOutput = z.infer<ReturnType<typeof hookOutputSchema>>

export interface InterpretOptions {
  /** Exit-0 stdout that is not JSON counts as context (SessionStart, UserPromptSubmit). */
  plainStdoutIsContext: boolean
}

/** Interprets one run. Never throws: malformed output becomes a warning on the outcome. */
export function interpretHookRun(run: HookRun, options: InterpretOptions): HookOutcome {
  const outcome: HookOutcome = { decision: 'none', context: [], warnings: [] }
  if (run.error !== undefined) return { ...outcome, decision: 'error', reason: run.error }
  if (run.notStarted !== undefined)
    return { ...outcome, decision: 'error', reason: `could not start (${run.notStarted})` }
  if (run.timedOut) return { ...outcome, decision: 'error', reason: `timed out after ${run.durationMs} ms` }
  if (run.killed) return { ...outcome, decision: 'error', reason: 'killed' }
  if (run.exitCode === 2) {
    return {
      ...outcome,
      decision: 'block',
      reason: clip(run.stderr.trim()) || 'blocked by hook (exit code 2)',
    }
  }
  if (run.exitCode !== 0) {
    // The docs read JSON only on exit 0; say so rather than drop it without a word.
    if (run.stdout.trim().startsWith('{'))
      outcome.warnings.push(
        `JSON on stdout ignored: hooks are read as JSON only when they exit 0 (this one exited ${run.exitCode ?? 'by a signal'})`,
      )
    const detail = run.stderr.trim()
    const ended = run.exitCode === null ? 'ended by a signal' : `exited with code ${run.exitCode}`
    return { ...outcome, decision: 'error', reason: detail ? `${ended}: ${clip(detail)}` : ended }
  }
  const stdout = run.stdout.trim()
  if (stdout === '') return outcome
  if (!stdout.startsWith('{')) {
    if (options.plainStdoutIsContext) outcome.context.push(clip(stdout))
    return outcome
  }
  const parsed = parseHookOutput(stdout)
  if (!parsed.ok) {
    outcome.warnings.push(`hook output ignored: ${parsed.problem}`)
    return outcome
  }
  return { ...outcome, ...fromJson(parsed.output) }
}

/** Parses stdout text as a hook output object. */
export function parseHookOutput(
  text: string,
): { ok: true; output: HookOutput } | { ok: false; problem: string } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return {
      ok: false,
      problem: `malformed JSON (${error instanceof Error ? error.message : String(error)})`,
    }
  }
  const result = hookOutputSchema().safeParse(value)
  if (!result.success) {
    const issue = result.error.issues[0]
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(top level)'
    return { ok: false, problem: `unexpected JSON at ${where}: ${issue?.message ?? 'invalid'}` }
  }
  return { ok: true, output: result.data }
}

function fromJson(output: HookOutput): Omit<HookOutcome, 'warnings'> {
  const specific = output.hookSpecificOutput
  const outcome: Omit<HookOutcome, 'warnings'> = { decision: 'none', context: [] }
  // permissionDecision supersedes the older top-level `decision`.
  const permission = specific?.permissionDecision
  if (permission !== undefined && permission !== 'defer') {
    outcome.decision = permission
    const reason = specific?.permissionDecisionReason ?? output.reason
    if (reason !== undefined) outcome.reason = clip(reason)
  } else if (output.decision !== undefined) {
    outcome.decision = output.decision === 'block' ? 'block' : 'allow'
    if (output.reason !== undefined) outcome.reason = clip(output.reason)
    else if (output.decision === 'block') outcome.reason = 'blocked by hook'
  }
  const answer = specific?.decision
  if (answer !== undefined) {
    outcome.decision = answer.behavior
    if (answer.message !== undefined) outcome.reason = clip(answer.message)
    if (answer.updatedInput !== undefined) outcome.updatedInput = answer.updatedInput
  }
  if (specific?.updatedInput !== undefined) outcome.updatedInput = specific.updatedInput
  if (output.suppressOutput === true) outcome.suppressOutput = true
  if (specific?.additionalContext !== undefined && specific.additionalContext.trim() !== '') {
    outcome.context.push(clip(specific.additionalContext))
  }
  if (output.continue === false) outcome.stop = { reason: clip(output.stopReason ?? '') }
  if (output.systemMessage !== undefined) outcome.systemMessage = clip(output.systemMessage)
  return outcome
}

function clip(text: string): string {
  if (text.length <= MAX_HOOK_TEXT_CHARS) return text
  return `${text.slice(0, MAX_HOOK_TEXT_CHARS)}\n[hook output truncated: ${text.length} characters in all]`
}
