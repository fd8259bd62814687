// The one schema of a Claude Code settings file (`.claude/settings.json` and the like) as a
// whole object: hooks, permissions, env, model and whatever else Claude Code keeps there.
// Hooks and permission rules each read their own key through it; a key that is absent is
// fine, and only a present, malformed key is an error, named by its path.

import * as z from 'zod'
import { lazySchema } from '../core/lazy-schema.js'

/** `{ Event: [groups] }`: the value of `hooks`, and the whole of a Codex hooks.json. */
export const hookEventMapSchema = lazySchema(() => {
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
  return z.record(z.string(), z.array(groupSchema))
})

export const settingsFileSchema = lazySchema(() =>
  z.looseObject({
    hooks: hookEventMapSchema().optional(),
    permissions: z
      .looseObject({
        allow: z.array(z.string()).optional(),
        ask: z.array(z.string()).optional(),
        deny: z.array(z.string()).optional(),
        additionalDirectories: z.array(z.string()).optional(),
      })
      .optional(),
    env: z.record(z.string(), z.string()).optional(),
    model: z.string().optional(),
  }),
)

export type SettingsFile = z.infer<ReturnType<typeof settingsFileSchema>>

type SettingsKey = 'hooks' | 'permissions'

export type SettingsKeyResult<K extends SettingsKey> =
  | { readonly ok: true; readonly value: SettingsFile[K] }
  | { readonly ok: false; readonly problem: string }

/** True for a JSON object (not an array, not null). */
export function isSettingsObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * One key of a parsed settings file, checked by the file's schema. Absent: ok, undefined.
 * A problem names the key path (`hooks.PreToolUse[0].hooks: expected array, received string`).
 */
export function readSettingsKey<K extends SettingsKey>(value: unknown, key: K): SettingsKeyResult<K> {
  if (!isSettingsObject(value)) return { ok: false, problem: '(top level): expected a JSON object' }
  const parsed = settingsFileSchema().shape[key].safeParse(value[key])
  if (parsed.success) return { ok: true, value: parsed.data as SettingsFile[K] }
  return { ok: false, problem: describeSettingsIssues(parsed.error, [key]) }
}

/** Up to three issues, each led by its key path (`hooks.Stop[0].hooks[1].timeout: …`). */
export function describeSettingsIssues(error: z.ZodError, prefix: readonly (string | number)[] = []): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${keyPath([...prefix, ...(issue.path as (string | number)[])])}: ${issue.message}`)
    .join('; ')
}

function keyPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(top level)'
  return path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('')
}
