// Hook settings files: a Claude Code settings object whose `hooks` key holds the event map
// (settings-file.ts, the one schema of the whole file), or a bare event map (Codex's
// hooks.json can be either). A missing or invalid file is a warning; a settings object
// without `hooks` is simply a file without hooks.

import { homedir } from 'node:os'
import { resolve } from 'node:path'
import type * as z from 'zod'
import { MAX_PROJECT_FILE_BYTES, readCappedText } from '../../core/capped-file.js'
import { DshError, errorMessage } from '../../core/errors.js'
import {
  describeSettingsIssues,
  hookEventMapSchema,
  isSettingsObject,
  readSettingsKey,
} from '../../permissions/claude-settings-file.js'
import { HookErrorCode } from './errors.js'
import type { HookCommand, HookGroup, HookSettings, HookWarn } from './types.js'

/**
 * Parses the JSON value of one settings file. Returns undefined (after a warning) when the
 * file is not shaped like a hook map; non-command handlers are skipped with a warning.
 */
export function parseHookSettings(value: unknown, source: string, warn: HookWarn): HookSettings | undefined {
  const invalid = (problem: string) => {
    warn(`hook file ${source} is invalid, no hooks registered from it: ${problem}`, HookErrorCode.FileInvalid)
    return undefined
  }
  let map: Record<string, z.infer<ReturnType<typeof hookEventMapSchema>>[string]>
  if (isBareEventMap(value)) {
    const parsed = hookEventMapSchema().safeParse(value)
    if (!parsed.success) return invalid(describeSettingsIssues(parsed.error))
    map = parsed.data
  } else {
    const read = readSettingsKey(value, 'hooks')
    if (!read.ok) return invalid(read.problem)
    map = read.value ?? {}
  }
  const settings: HookSettings = new Map()
  for (const [event, groups] of Object.entries(map)) {
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

/**
 * A bare event map (`{ "PreToolUse": [...] }`, as a Codex hooks.json may be): an object
 * without `hooks` whose keys are all hook event names. A settings object's keys are
 * lower camel case (`permissions`, `env`, `model`).
 */
function isBareEventMap(value: unknown): boolean {
  if (!isSettingsObject(value) || 'hooks' in value) return false
  const keys = Object.keys(value)
  return keys.length > 0 && keys.every((key) => /^[A-Z]/.test(key))
}
