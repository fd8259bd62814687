// Dispatching one event: pick the matching hooks (matcher, then the handler's `if` rule),
// drop identical handlers, run them all at once, log each run, interpret its output and
// merge the outcomes in configuration order.

import { errorMessage } from '../../core/errors.js'
import {
  matchesRule,
  type PermissionRule,
  type PermissionSubject,
  parsePermissionRule,
} from '../../permissions/index.js'
import type { ShellExecutor } from '../../shell/executor.js'
import { HookErrorCode } from './errors.js'
import { type CompiledMatcher, compileMatcher } from './matcher.js'
import { mergeOutcomes } from './merge.js'
import { interpretHookRun } from './output.js'
import { type HookRecordSink, hookInvokedRecord, hookResultRecord } from './records.js'
import { runHookCommand } from './runner.js'
import {
  type HookCommand,
  type HookDialectName,
  type HookEventName,
  type HookOutcome,
  type HookSettings,
  type HookWarn,
  type MergedOutcome,
  TOOL_EVENTS,
} from './types.js'

/** One handler ready to run: its `if` rule parsed once. */
export interface CompiledHook extends HookCommand {
  /** The parsed `if` rule; undefined when the hook has none (or it could not be parsed: then it always runs). */
  rule?: PermissionRule
  /** The settings file it came from. */
  source: string
  /** Its group's matcher, as written. */
  matcher?: string
}

export interface CompiledGroup {
  matcher?: string
  match: CompiledMatcher
  hooks: readonly CompiledHook[]
}

/** The hooks a bridge runs, per supported event; events without hooks are absent. */
export type HookTable = Map<HookEventName, CompiledGroup[]>

/**
 * Compiles settings for one dialect. Events the dialect does not support are reported
 * through `note` (once per event, naming the file) and dropped.
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
      const files = [...new Set(groups.map((group) => group.source))].join(', ')
      note(`hook event ${event} (in ${files}) is not fired by dsh's ${dialect} bridge; its hooks do not run`)
      continue
    }
    table.set(
      event as HookEventName,
      groups.map((group) => ({
        ...(group.matcher !== undefined ? { matcher: group.matcher } : {}),
        match: compileMatcher(group.matcher, dialect, (message, code) =>
          warn(`${group.source}: ${message}`, code),
        ),
        hooks: group.hooks.map((hook) => compileHook(hook, group, event, warn)),
      })),
    )
  }
  return table
}

function compileHook(
  hook: HookCommand,
  group: { source: string; matcher?: string },
  event: string,
  warn: HookWarn,
): CompiledHook {
  const { source } = group
  const compiled: CompiledHook = { ...hook, source }
  if (group.matcher !== undefined) compiled.matcher = group.matcher
  if (hook.if === undefined) return compiled
  if (!TOOL_EVENTS.has(event)) {
    warn(
      `${source}: ${event} hook ${JSON.stringify(hook.command)} has "if": ${JSON.stringify(hook.if)}, which only applies to tool events; it runs for every ${event}`,
      HookErrorCode.InvalidIf,
    )
    return compiled
  }
  try {
    compiled.rule = parsePermissionRule(hook.if)
  } catch (error) {
    // A guard whose filter cannot be read runs for every call rather than for none.
    warn(
      `${source}: ${event} hook ${JSON.stringify(hook.command)}: ${errorMessage(error)}; the hook runs for every matching call`,
      HookErrorCode.InvalidIf,
    )
  }
  return compiled
}

/** Merges tables (configuration order: earlier tables first). */
export function mergeHookTables(tables: readonly HookTable[]): HookTable {
  const merged: HookTable = new Map()
  for (const table of tables)
    for (const [event, groups] of table) merged.set(event, [...(merged.get(event) ?? []), ...groups])
  return merged
}

/** Identical handlers (same command, same arguments) run once per event. */
export function hookKey(hook: HookCommand): string {
  return JSON.stringify([hook.command, hook.args ?? null])
}

export interface HookDispatch {
  dialect: HookDialectName
  event: HookEventName
  groups: readonly CompiledGroup[]
  /** Names the matchers are tested against; undefined when the event ignores matchers. */
  candidates: readonly string[] | undefined
  /** The tool call as permission rules see it (tool events only): what `if` rules are matched against. */
  subject?: PermissionSubject
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
  /** Receives what the user must see: `systemMessage`s and hooks that could not start. */
  notify: (message: string) => void
  /** False for events whose `systemMessage` the tool documents as discarded. Default true. */
  showSystemMessage?: boolean
  /** `once` hooks: answers whether this hook already ran for this session, and marks it. */
  once?: (key: string) => boolean
}

/** The hooks of one event that match, identical handlers once, in configuration order. */
export function selectHooks(
  dispatch: Pick<HookDispatch, 'groups' | 'candidates' | 'subject'>,
): CompiledHook[] {
  const { candidates, subject } = dispatch
  const seen = new Set<string>()
  const selected: CompiledHook[] = []
  for (const group of dispatch.groups) {
    if (candidates !== undefined && !group.match(candidates)) continue
    for (const hook of group.hooks) {
      if (hook.rule && subject && !matchesRule(hook.rule, subject, 'any')) continue
      const key = hookKey(hook)
      if (seen.has(key)) continue
      seen.add(key)
      selected.push(hook)
    }
  }
  return selected
}

/** Runs the matching hooks at once; resolves with their merged outcome (none when no hook matched). */
export async function dispatchHooks(dispatch: HookDispatch): Promise<MergedOutcome> {
  const selected = selectHooks(dispatch).filter((hook) => !hook.once || !dispatch.once?.(hookKey(hook)))
  if (selected.length === 0 || dispatch.signal.aborted) return mergeOutcomes([])
  const payload = dispatch.payload()
  const runs = selected.map((hook) => {
    const running = runOne(dispatch, hook, payload)
    return hook.async ? undefined : running
  })
  const outcomes = await Promise.all(runs.filter((run) => run !== undefined))
  return mergeOutcomes(outcomes)
}

async function runOne(dispatch: HookDispatch, hook: CompiledHook, payload: unknown): Promise<HookOutcome> {
  const info = {
    dialect: dispatch.dialect,
    event: dispatch.event,
    command: hook.args ? [hook.command, ...hook.args].join(' ') : hook.command,
    ...(hook.matcher !== undefined ? { matcher: hook.matcher } : {}),
  }
  dispatch.record(hookInvokedRecord(info))
  const run = await runHookCommand({
    shell: dispatch.shell(),
    command: hook.command,
    ...(hook.args ? { args: hook.args } : {}),
    cwd: dispatch.cwd,
    payload,
    ...(hook.timeoutSec !== undefined ? { timeoutSec: hook.timeoutSec } : {}),
    ...(dispatch.env ? { env: dispatch.env } : {}),
    signal: dispatch.signal,
  })
  const outcome = interpretHookRun(run, { plainStdoutIsContext: dispatch.plainStdoutIsContext })
  dispatch.record(hookResultRecord(info, run, outcome))
  const label = `${dispatch.dialect} ${dispatch.event} hook ${JSON.stringify(info.command)} (${hook.source})`
  for (const warning of outcome.warnings) dispatch.warn(`${label}: ${warning}`, HookErrorCode.BadOutput)
  if (run.notStarted !== undefined) {
    // A guard that cannot run must never look like one that allowed: say so every time.
    dispatch.notify(`${label} could not start (${run.notStarted}): it did not run, so it checked nothing`)
  } else if (outcome.decision === 'error') {
    dispatch.warn(`${label} failed (non-blocking): ${outcome.reason ?? 'error'}`, HookErrorCode.HookFailed)
  }
  if (outcome.systemMessage !== undefined && dispatch.showSystemMessage !== false)
    dispatch.notify(outcome.systemMessage)
  return hook.async ? { decision: 'none', context: [], warnings: [] } : outcome
}
