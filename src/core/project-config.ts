// What counts as a project's own configuration — the files that make dsh (or Claude Code,
// Codex) run code, allow tools or steer the model. One list for the sandbox (mounted
// read-only), the file tools (writes ask) and project trust (bound to their content).

import { isAbsolute, relative, resolve, sep } from 'node:path'

/** Entries directly under the project root that are project configuration, with their kind. */
export const PROJECT_CONFIG_ENTRIES: ReadonlyArray<{ readonly name: string; readonly kind: 'file' | 'dir' }> =
  [
    { name: '.mcp.json', kind: 'file' },
    { name: '.claude', kind: 'dir' }, // settings, hooks, allow rules, skills, commands
    { name: '.codex', kind: 'dir' },
    { name: '.dsh', kind: 'dir' },
    { name: '.agents', kind: 'dir' }, // skills
    { name: 'AGENTS.md', kind: 'file' },
    { name: 'CLAUDE.md', kind: 'file' },
  ]

/**
 * The files whose content a trust answer covers, relative to the project root: what can
 * start a process on the host (MCP servers, hooks) or widen what tools may do (allow rules).
 */
export const PROJECT_TRUSTED_FILES = [
  '.mcp.json',
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.codex/hooks.json',
] as const

/**
 * The project configuration entry `path` lies in (`.claude`, `.mcp.json`), or undefined.
 * Compares names as given: callers resolve symlinks first when that matters.
 */
export function projectConfigEntryOf(root: string, path: string): string | undefined {
  const rel = relative(resolve(root), resolve(path))
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined
  const first = rel.split(sep)[0]
  return PROJECT_CONFIG_ENTRIES.find((entry) => entry.name === first)?.name
}
