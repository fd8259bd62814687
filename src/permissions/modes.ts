// Permission modes: dsh's own default (`auto`) plus Claude Code's four. `auto` runs tools
// inside the project without asking, as dsh always has; writes outside the project ask.

export const PERMISSION_MODES = ['auto', 'default', 'acceptEdits', 'plan', 'bypassPermissions'] as const

export type PermissionMode = (typeof PERMISSION_MODES)[number]

export const PERMISSION_MODE_DESCRIPTIONS: Readonly<Record<PermissionMode, string>> = {
  auto: "dsh's default: tools run without asking inside the project; writes outside it ask (denied when nobody can be asked)",
  default: 'ask before file edits and before bash commands no allow rule covers (Claude Code default)',
  acceptEdits: 'file edits inside the project run without asking; bash and other tools ask unless allowed',
  plan: 'read-only tools only: research and answer with a plan; you leave plan mode',
  bypassPermissions: 'never ask, also outside the project; deny rules still apply',
}

/** Short names for pickers (ACP session modes); the ids above are what flags and config take. */
export const PERMISSION_MODE_NAMES: Readonly<Record<PermissionMode, string>> = {
  auto: 'Auto',
  default: 'Ask before edits and commands',
  acceptEdits: 'Accept edits',
  plan: 'Plan',
  bypassPermissions: 'Bypass permissions',
}

export function isPermissionMode(value: string): value is PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(value)
}

/** The `permission_mode` hooks see: Claude Code's names; dsh's `auto` is reported as `default`. */
export function hookPermissionMode(mode: PermissionMode): string {
  return mode === 'auto' ? 'default' : mode
}
