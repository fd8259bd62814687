// Hook settings files: the Claude Code shape `{ "hooks": { Event: [groups] } }` or a bare
// event map (Codex's hooks.json is the same). A missing or invalid file is a warning.

import { homedir } from 'node:os'
import { resolve } from 'node:path'
import * as z from 'zod'
import { MAX_PROJECT_FILE_BYTES, readCappedText } from '../../core/capped-file.js'
import { DshError, errorMessage } from '../../core/errors.js'
import { HookErrorCode } from './errors.js'
import type { HookCommand, HookGroup, HookSettings, HookWarn } from './types.js'

const seconds = z.number().positive().finite()

const handlerSchema = z.looseObject({
  type: z.string().optional(),
  command: z.unknown().optional(),
  args: z.array(z.string()).optional(),
  if: z.string().optional(),
  async: z.boolean().optional(),
  once: z.boolean().optional(),
  timeout: seconds.optional(),
  timeoutSec: seconds.optional(),
})

const groupSchema = z.looseObject({
  matcher: z.string().optional(),
  hooks: z.array(handlerSchema),
})

const eventMapSchema = z.record(z.string(), z.array(groupSchema))

/**
 * Parses the JSON value of one settings file. Returns undefined (after a warning) when the
 * file is not shaped like a hook map; non-command handlers are skipped with a warning.
 */
export function parseHookSettings(value: unknown, source: string, warn: HookWarn): HookSettings | undefined {
  const map = hookMapOf(value)
  const parsed = eventMapSchema.safeParse(map)
  if (!parsed.success) {
    warn(
      `hook file ${source} is invalid, no hooks registered from it: ${describeIssues(parsed.error)}`,
      HookErrorCode.FileInvalid,
    )
    return undefined
  }
  const settings: HookSettings = new Map()
  for (const [event, groups] of Object.entries(parsed.data)) {
    const kept: HookGroup[] = []
    for (const [index, group] of groups.entries()) {
      const hooks: HookCommand[] = []
      for (const handler of group.hooks) {
        const type = handler.type ?? 'command'
        if (type !== 'command') {
          warn(
            `hook file ${source}: ${event}[${index}] has a hook of type ${JSON.stringify(type)} that dsh does not run (only "command" hooks run); it is skipped`,
            HookErrorCode.UnsupportedType,
          )
          continue
        }
        if (typeof handler.command !== 'string' || handler.command.trim() === '') {
          warn(
            `hook file ${source} is invalid, no hooks registered from it: ${event}[${index}] has a command hook without a command`,
            HookErrorCode.FileInvalid,
          )
          return undefined
        }
        const timeoutSec = handler.timeout ?? handler.timeoutSec
        const hook: HookCommand = { command: handler.command }
        if (handler.args !== undefined) hook.args = handler.args
        if (timeoutSec !== undefined) hook.timeoutSec = timeoutSec
        if (handler.if !== undefined && handler.if.trim() !== '') hook.if = handler.if
        if (handler.async === true) hook.async = true
        if (handler.once === true) hook.once = true
        hooks.push(hook)
      }
      if (hooks.length === 0) continue
      kept.push(group.matcher === undefined ? { hooks, source } : { matcher: group.matcher, hooks, source })
    }
    if (kept.length > 0) settings.set(event, kept)
  }
  return settings
}

/**
 * Reads settings files in order and concatenates their groups per event. Paths may start
 * with `~`; relative paths resolve against `process.cwd()`. Never throws.
 */
export function loadHookFiles(files: readonly string[], warn: HookWarn): HookSettings {
  const merged: HookSettings = new Map()
  for (const file of files) {
    const path = resolveHookFilePath(file)
    let text: string
    try {
      text = readCappedText(path, {
        maxBytes: MAX_PROJECT_FILE_BYTES,
        what: 'hook file',
        code: HookErrorCode.FileUnreadable,
      })
    } catch (error) {
      warn(
        error instanceof DshError
          ? `${error.message}; no hooks registered from it`
          : `hook file ${path} could not be read, no hooks registered from it: ${errorMessage(error)}`,
        HookErrorCode.FileUnreadable,
      )
      continue
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      warn(
        `hook file ${path} is not valid JSON, no hooks registered from it: ${errorMessage(error)}`,
        HookErrorCode.FileInvalid,
      )
      continue
    }
    const settings = parseHookSettings(value, path, warn)
    if (!settings) continue
    for (const [event, groups] of settings) merged.set(event, [...(merged.get(event) ?? []), ...groups])
  }
  return merged
}

export function resolveHookFilePath(file: string): string {
  if (file === '~') return homedir()
  if (file.startsWith('~/')) return resolve(homedir(), file.slice(2))
  return resolve(process.cwd(), file)
}

/** The event map inside a settings file: its `hooks` key when present, else the value itself. */
function hookMapOf(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'hooks' in value) {
    return (value as { hooks: unknown }).hooks
  }
  return value
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(top level)'}: ${issue.message}`)
    .join('; ')
}
