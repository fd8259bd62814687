// Dispatching one event: pick the matching hooks (config order), run them one after
// another, log each run, interpret its output and merge the outcomes.

import type { ShellExecutor } from '../../shell/executor.js'
import { HookErrorCode } from './errors.js'
import { type CompiledMatcher, compileMatcher } from './matcher.js'
import { mergeOutcomes } from './merge.js'
import { interpretHookRun } from './output.js'
import { type HookRecordSink, hookInvokedRecord, hookResultRecord } from './records.js'
import { runHookCommand } from './runner.js'
import type {
  HookCommand,
  HookDialectName,
  HookEventName,
  HookSettings,
  HookWarn,
  MergedOutcome,
} from './types.js'

export interface CompiledGroup {
  matcher?: string
  match: CompiledMatcher
  hooks: readonly HookCommand[]
}

/** The hooks a bridge runs, per supported event; events without hooks are absent. */
export type HookTable = Map<HookEventName, CompiledGroup[]>

/**
 * Compiles settings for one dialect. Events the dialect does not support are reported
 * through `note` (they are common in real settings files) and dropped.
 */
export function compileHookTable(
  settings: HookSettings,
  dialect: HookDialectName,
  supported: readonly HookEventName[],
  warn: HookWarn,
  note: (message: string) => void,
): HookTable {
  const table: HookTable = new Map()
  for (const [event, groups] of settings) {
    if (!(supported as readonly string[]).includes(event)) {
      note(`hook event ${event} is not supported by the ${dialect} bridge; its hooks do not run`)
      continue
    }
    table.set(
      event as HookEventName,
      groups.map((group) => ({
        ...(group.matcher !== undefined ? { matcher: group.matcher } : {}),
        match: compileMatcher(group.matcher, dialect, (message, code) =>
          warn(`${group.source}: ${message}`, code),
        ),
        hooks: group.hooks,
      })),
    )
  }
  return table
}

export interface HookDispatch {
  dialect: HookDialectName
  event: HookEventName
  groups: readonly CompiledGroup[]
  /** Names the matchers are tested against; undefined when the event ignores matchers. */
  candidates: readonly string[] | undefined
  /** Built only when at least one hook matches. */
  payload: () => unknown
  /** Where `hook/invoked` and `hook/result` go (normally the session log). */
  record: HookRecordSink
  cwd: string
  env?: Readonly<Record<string, string>>
  shell: () => ShellExecutor | undefined
  signal: AbortSignal
  plainStdoutIsContext: boolean
  warn: HookWarn
  /** Receives `systemMessage`s (meant for the user). */
  notify: (message: string) => void
}

/** Runs the matching hooks in config order; resolves with their merged outcome (none when no hook matched). */
export async function dispatchHooks(dispatch: HookDispatch): Promise<MergedOutcome> {
  const { candidates } = dispatch
  const matching = dispatch.groups.filter((group) => candidates === undefined || group.match(candidates))
  if (matching.length === 0) return mergeOutcomes([])
  const payload = dispatch.payload()
  const outcomes = []
  for (const group of matching) {
    for (const hook of group.hooks) {
      if (dispatch.signal.aborted) break
      const info = {
        dialect: dispatch.dialect,
        event: dispatch.event,
        command: hook.command,
        ...(group.matcher !== undefined ? { matcher: group.matcher } : {}),
      }
      dispatch.record(hookInvokedRecord(info))
      const run = await runHookCommand({
        shell: dispatch.shell(),
        command: hook.command,
        cwd: dispatch.cwd,
        payload,
        ...(hook.timeoutSec !== undefined ? { timeoutSec: hook.timeoutSec } : {}),
        ...(dispatch.env ? { env: dispatch.env } : {}),
        signal: dispatch.signal,
      })
      const outcome = interpretHookRun(run, { plainStdoutIsContext: dispatch.plainStdoutIsContext })
      dispatch.record(hookResultRecord(info, run, outcome))
      const label = `${dispatch.dialect} ${dispatch.event} hook ${JSON.stringify(hook.command)}`
      for (const warning of outcome.warnings) dispatch.warn(`${label}: ${warning}`, HookErrorCode.BadOutput)
      if (outcome.decision === 'error') {
        dispatch.warn(
          `${label} failed (non-blocking): ${outcome.reason ?? 'error'}`,
          HookErrorCode.HookFailed,
        )
      }
      if (outcome.systemMessage !== undefined) dispatch.notify(outcome.systemMessage)
      outcomes.push(outcome)
    }
  }
  return mergeOutcomes(outcomes)
}
