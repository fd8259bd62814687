// The permission decision for one tool call: rules (deny > ask > allow, by the one rule
// matcher), the mode, and the project boundary for writes. Pure: no I/O but realpath.

import { realpathSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { projectConfigEntryOf } from '../core/project-config.js'
import type { PermissionMode } from './modes.js'
import { notReadOnly } from './read-only-command.js'
import { evaluateRules } from './rule-set.js'
import { toolKind } from './tool-kinds.js'
import type { PermissionRuleSet, PermissionSubject } from './types.js'

export type PolicyDecision =
  | { readonly behavior: 'allow'; readonly reason?: string }
  | {
      readonly behavior: 'ask' | 'deny'
      readonly reason: string
      /** An ask no allow rule or mode but bypass answers: a write to the project's configuration. */
      readonly configWrite?: true
    }

export interface PolicyInput {
  readonly mode: PermissionMode
  readonly rules: PermissionRuleSet
  readonly subject: PermissionSubject
  /** The project root; edits outside it (and outside `extraFolders`) need approval. */
  readonly projectRoot: string
  readonly extraFolders?: readonly string[]
}

export function decideToolPermission(input: PolicyInput): PolicyDecision {
  const { mode, rules, subject } = input
  const ruled = evaluateRules(rules, subject)
  if (ruled?.behavior === 'deny')
    return { behavior: 'deny', reason: `denied by the permission rule ${ruled.rule.text}` }
  if (mode === 'bypassPermissions') return { behavior: 'allow' }
  if (subject.tool === 'ExitPlanMode') return planExit(mode, ruled?.behavior === 'allow')
  let kind = toolKind(subject.tool)
  // Plan mode is for research: a bash command that only reads (`git log`, `rg x`, `ls`) runs
  // like the read tools; web reads stay possible, asked for like in default mode.
  if (mode === 'plan' && subject.tool === 'Bash') {
    const why = notReadOnly(typeof subject.input.command === 'string' ? subject.input.command : '')
    if (why !== undefined) {
      return {
        behavior: 'deny',
        reason: `plan mode is on: only read-only commands run, and this one is not (${why}). Finish researching and present your plan; the user decides when to leave plan mode.`,
      }
    }
    kind = 'read'
  }
  if (mode === 'plan' && kind !== 'read' && kind !== 'web') {
    return {
      behavior: 'deny',
      reason: `plan mode is on: only read-only tools run (${subject.tool} changes things). Finish researching and present your plan; the user decides when to leave plan mode.`,
    }
  }
  // Before allow rules and modes: a model that may edit files must not widen its own powers
  // (allow rules, hooks, MCP servers) or plant instructions without the user saying so.
  const configEntry = kind === 'edit' ? projectConfigTarget(input) : undefined
  if (configEntry !== undefined) {
    return {
      behavior: 'ask',
      reason: `${subject.tool} changes the project's configuration (${configEntry}), which always needs your approval`,
      configWrite: true,
    }
  }
  if (ruled?.behavior === 'ask')
    return { behavior: 'ask', reason: `the permission rule ${ruled.rule.text} asks for approval` }
  const outside = kind === 'edit' ? outsidePath(input) : undefined
  if (ruled?.behavior === 'allow') return { behavior: 'allow', reason: `allowed by ${ruled.rule.text}` }
  if (outside !== undefined) {
    return {
      behavior: 'ask',
      reason: `${subject.tool} writes outside the project (${input.projectRoot}): ${outside}`,
    }
  }
  if (kind === 'read' || mode === 'auto') return { behavior: 'allow' }
  if (mode === 'acceptEdits' && kind === 'edit') return { behavior: 'allow' }
  return {
    behavior: 'ask',
    reason: `${subject.tool} needs approval in ${mode} mode (no allow rule covers it)`,
  }
}

/** Leaving plan mode is the user's decision: asked in plan mode (or an allow rule); a no-op call elsewhere. */
function planExit(mode: PermissionMode, allowedByRule: boolean): PolicyDecision {
  if (mode !== 'plan' || allowedByRule) return { behavior: 'allow' }
  return { behavior: 'ask', reason: 'the model presents its plan and asks to leave plan mode and start' }
}

/** The absolute, symlink-resolved file an edit tool writes, if it names one. */
function editTarget(input: PolicyInput): string | undefined {
  const path = input.subject.input.file_path ?? input.subject.input.notebook_path
  if (typeof path !== 'string' || path === '') return undefined
  return realOrSelf(isAbsolute(path) ? resolve(path) : resolve(input.subject.cwd, path))
}

/** The project configuration entry (`.mcp.json`, `.claude`) an edit writes into, judged after symlinks. */
function projectConfigTarget(input: PolicyInput): string | undefined {
  const target = editTarget(input)
  if (target === undefined) return undefined
  const root = input.projectRoot
  return projectConfigEntryOf(realOrSelf(root), target) ?? projectConfigEntryOf(resolve(root), target)
}

/** The file an edit tool writes, when it lies outside the project and the extra folders. */
function outsidePath(input: PolicyInput): string | undefined {
  const absolute = editTarget(input)
  if (absolute === undefined) return undefined
  const folders = [input.projectRoot, ...(input.extraFolders ?? [])].map(realOrSelf)
  return folders.some((folder) => isWithin(folder, absolute)) ? undefined : absolute
}

function isWithin(folder: string, path: string): boolean {
  const rel = relative(folder, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    // A file about to be created: judge it by the nearest folder that exists.
    const parent = resolve(path, '..')
    return parent === path ? path : resolve(realOrSelf(parent), relative(parent, path))
  }
}
