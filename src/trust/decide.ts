// The one trust decision for a project folder's own configuration. Trust is bound to the
// content of the project's configuration files: remembered trust counts only while they
// are unchanged. Chat, web and ACP ask (again) and remember a yes; where nobody can be
// asked (`dsh run`, `dsh stdio`) an untrusted or changed folder brings nothing unless the
// user said so for this run (`--trust-project`, config `trustProjects`).

import {
  type ConfigFingerprint,
  changedConfigFiles,
  fingerprintProjectConfig,
  isEmptyFingerprint,
} from './fingerprint.js'
import type { ProjectTrustStore } from './trust-store.js'

export type TrustFrontEnd = 'interactive' | 'headless'

export type TrustReason =
  /** Trusted before, and its configuration files are as they were then. */
  | 'remembered'
  /** The user said yes just now (remembered). */
  | 'accepted'
  /** The user said yes for this run only (ACP's allow once): nothing is remembered. */
  | 'accepted-once'
  /** `--trust-project` or config `trustProjects`: trusted for this run without asking. */
  | 'granted'
  | 'declined'
  /** `--no-project-config`. */
  | 'disabled'
  /** An interactive front end with nobody to ask (ACP outside a session being set up). */
  | 'cannot-ask'
  /** Headless, and the folder was never trusted. */
  | 'untrusted'
  /** Headless, and configuration files changed since the folder was trusted. */
  | 'changed'

export interface ProjectTrustDecision {
  readonly trusted: boolean
  readonly reason: TrustReason
  /** Configuration files changed since the folder was trusted (relative to it), when that is why it was asked or refused. */
  readonly changed?: readonly string[]
}

export interface DecideProjectTrustOptions {
  /** The project root whose files want to be loaded. */
  readonly folder: string
  readonly frontEnd: TrustFrontEnd
  /** `--no-project-config`: load nothing from the project, ask nothing. */
  readonly disabled?: boolean
  /** `--trust-project` / config `trustProjects`: trust for this process without asking (nothing is remembered). */
  readonly granted?: boolean
  /**
   * Asks the user; `brings` lists what the project would add ("2 hooks", "MCP server db"),
   * led by what changed when it was trusted before. Without it an interactive front end
   * cannot ask, and the folder stays untrusted. `'once'` trusts for this process without
   * remembering it.
   */
  readonly ask?: (folder: string, brings: readonly string[]) => Promise<boolean | 'once'>
  readonly brings?: readonly string[]
}

/** Decides whether to load a project's own configuration. Never trusts by failing: a thrown `ask` or store error propagates. */
export async function decideProjectTrust(
  store: ProjectTrustStore,
  options: DecideProjectTrustOptions,
): Promise<ProjectTrustDecision> {
  if (options.disabled) return { trusted: false, reason: 'disabled' }
  const { folder } = options
  const current = fingerprintProjectConfig(folder)
  const changed = changedSinceTrusted(store, folder, current)
  if (changed?.length === 0) return { trusted: true, reason: 'remembered' }
  const because = changed ? { changed } : {}
  // For this run only: the user's standing trust is what they answered in chat, web or ACP.
  if (options.granted) return { trusted: true, reason: 'granted' }
  if (options.frontEnd === 'headless')
    return { trusted: false, reason: changed ? 'changed' : 'untrusted', ...because }
  if (!options.ask) return { trusted: false, reason: 'cannot-ask', ...because }
  const brings = [
    ...(changed ? [`changed since you trusted it: ${changed.join(', ')}`] : []),
    ...(options.brings ?? []),
  ]
  const accepted = await options.ask(folder, brings)
  if (!accepted) return { trusted: false, reason: 'declined', ...because }
  if (accepted === 'once') return { trusted: true, reason: 'accepted-once' }
  store.trust(folder, Date.now(), current)
  return { trusted: true, reason: 'accepted' }
}

/** Whether `folder` counts as trusted right now (trusted, configuration unchanged), without asking or recording anything. */
export function isTrustedNow(store: ProjectTrustStore, folder: string): boolean {
  return changedSinceTrusted(store, folder, fingerprintProjectConfig(folder), false)?.length === 0
}

/**
 * Undefined when `folder` was never trusted; else the configuration files changed since
 * (empty: unchanged). A trusted folder whose content dsh never recorded — trusted only
 * through a parent ("trust what is inside"), or before dsh recorded content — counts every
 * configuration file it has as changed: nobody saw what it held. A nested project the
 * model made inside a trusted one (a `.dsh` marker and an `.mcp.json` below it) must not
 * bring its servers on the strength of the parent's trust. Without configuration files it
 * takes its (empty) content as first seen, and later files count as changes.
 */
function changedSinceTrusted(
  store: ProjectTrustStore,
  folder: string,
  current: ConfigFingerprint,
  record = true,
): string[] | undefined {
  if (!store.trustedBy(folder)) return undefined
  const known = store.configOf(folder)
  if (known) return changedConfigFiles(known, current)
  if (!isEmptyFingerprint(current)) return changedConfigFiles({}, current)
  if (record) store.recordConfig(folder, current)
  return []
}
