// The one trust decision for a project folder's own configuration: remembered trust wins;
// headless front ends (`dsh run`, `dsh stdio`) trust as Claude Code's non-interactive mode
// does; chat and ACP ask once and remember a yes; `--no-project-config` turns it all off.

import type { ProjectTrustStore } from './trust-store.js'

export type TrustFrontEnd = 'interactive' | 'headless'

export type TrustReason = 'remembered' | 'headless' | 'accepted' | 'declined' | 'disabled' | 'cannot-ask'

export interface ProjectTrustDecision {
  readonly trusted: boolean
  readonly reason: TrustReason
}

export interface DecideProjectTrustOptions {
  /** The project root whose files want to be loaded. */
  readonly folder: string
  readonly frontEnd: TrustFrontEnd
  /** `--no-project-config`: load nothing from the project, ask nothing. */
  readonly disabled?: boolean
  /**
   * Asks the user; `brings` lists what the project would add ("2 hooks", "MCP server db").
   * Without it an interactive front end cannot ask, and the folder stays untrusted.
   */
  readonly ask?: (folder: string, brings: readonly string[]) => Promise<boolean>
  readonly brings?: readonly string[]
}

/** Decides whether to load a project's own configuration. Never trusts by failing: a thrown `ask` propagates. */
export async function decideProjectTrust(
  store: ProjectTrustStore,
  options: DecideProjectTrustOptions,
): Promise<ProjectTrustDecision> {
  if (options.disabled) return { trusted: false, reason: 'disabled' }
  if (store.isTrusted(options.folder)) return { trusted: true, reason: 'remembered' }
  if (options.frontEnd === 'headless') return { trusted: true, reason: 'headless' }
  if (!options.ask) return { trusted: false, reason: 'cannot-ask' }
  const accepted = await options.ask(options.folder, options.brings ?? [])
  if (!accepted) return { trusted: false, reason: 'declined' }
  store.trust(options.folder)
  return { trusted: true, reason: 'accepted' }
}
