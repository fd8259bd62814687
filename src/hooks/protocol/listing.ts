// What `dsh hooks list` shows: every handler a session in a folder would run, with its
// file, event, matcher and `if`, the events each dialect cannot fire, and the problems
// found while reading (unsupported hook types, bad files). Reads files; runs nothing.

import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { findProjectRoot } from '../../core/project-root.js'
import { HOOK_FILE_LOCATIONS } from './bridge.js'
import { loadHookFiles } from './config.js'
import type { HookDialectName, HookEventName } from './types.js'

/**
 * Events each tool documents: the Claude Code hooks reference (code.claude.com/docs/en/hooks)
 * and Codex's hooks page (developers.openai.com/codex/hooks, last modified 2026-05-22), both
 * read 2026-12-04.
 */
export const DOCUMENTED_EVENTS: Readonly<Record<HookDialectName, readonly string[]>> = {
  'claude-code': [
    'Setup',
    'SessionStart',
    'UserPromptSubmit',
    'UserPromptExpansion',
    'PreToolUse',
    'PermissionRequest',
    'PermissionDenied',
    'PostToolUse',
    'PostToolUseFailure',
    'PostToolBatch',
    'Notification',
    'MessageDisplay',
    'SubagentStart',
    'SubagentStop',
    'TaskCreated',
    'TaskCompleted',
    'Stop',
    'StopFailure',
    'TeammateIdle',
    'PreCompact',
    'PostCompact',
    'SessionEnd',
    'Elicitation',
    'ElicitationResult',
    'WorktreeCreate',
    'WorktreeRemove',
    'ConfigChange',
    'InstructionsLoaded',
    'CwdChanged',
    'DirectoryAdded',
    'FileChanged',
  ],
  codex: [
    'SessionStart',
    'SubagentStart',
    'PreToolUse',
    'PermissionRequest',
    'PostToolUse',
    'PreCompact',
    'PostCompact',
    'UserPromptSubmit',
    'SubagentStop',
    'Stop',
  ],
}

export interface HookListRow {
  dialect: HookDialectName
  event: string
  matcher: string | null
  if: string | null
  command: string
  args: string[] | null
  async: boolean
  once: boolean
  timeoutSec: number | null
  file: string
  /** Where the file came from: dsh's config (or the opted-in user file), or the project. */
  origin: 'config' | 'project'
  /** False when dsh does not fire this event for the dialect: the handler never runs. */
  fired: boolean
}

export interface HookListing {
  projectRoot: string
  rows: HookListRow[]
  /** Documented events each dialect cannot fire in dsh. */
  notFired: Record<HookDialectName, string[]>
  problems: string[]
}

export interface ListHooksOptions {
  cwd: string
  /** Per dialect: the files always read (config and opted-in user files). */
  files: Record<HookDialectName, readonly string[]>
  /** Per dialect: the events dsh fires. */
  supported: Record<HookDialectName, readonly HookEventName[]>
  /** Whether project files are read at all (`hooks.projectFiles`, `--no-project-config`). */
  projectFiles: boolean
}

export function listHooks(options: ListHooksOptions): HookListing {
  const root = findProjectRoot(options.cwd)
  const listing: HookListing = {
    projectRoot: root,
    rows: [],
    notFired: { 'claude-code': [], codex: [] },
    problems: [],
  }
  const warn = (message: string) => listing.problems.push(message)
  for (const dialect of ['claude-code', 'codex'] as const) {
    const supported = options.supported[dialect] as readonly string[]
    listing.notFired[dialect] = DOCUMENTED_EVENTS[dialect].filter((event) => !supported.includes(event))
    const project =
      options.projectFiles && root !== homedir()
        ? HOOK_FILE_LOCATIONS[dialect].project.map((file) => resolve(root, file))
        : []
    for (const [origin, files] of [
      ['config', options.files[dialect]],
      ['project', project],
    ] as const) {
      const present = origin === 'project' ? files.filter((file) => existsSync(file)) : files
      for (const [event, groups] of loadHookFiles(present, warn)) {
        for (const group of groups) {
          for (const hook of group.hooks) {
            listing.rows.push({
              dialect,
              event,
              matcher: group.matcher ?? null,
              if: hook.if ?? null,
              command: hook.command,
              args: hook.args ?? null,
              async: hook.async === true,
              once: hook.once === true,
              timeoutSec: hook.timeoutSec ?? null,
              file: group.source,
              origin,
              fired: supported.includes(event),
            })
          }
        }
      }
    }
  }
  return listing
}
