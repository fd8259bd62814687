// The trust check for project `.mcp.json` servers, built on the one trust model
// (src/trust): headless front ends trust as Claude Code's non-interactive mode does,
// interactive ones ask once per folder and remember a yes.

import { decideProjectTrust, ProjectTrustStore, type TrustFrontEnd } from '../trust/index.js'
import type { ProjectTrustCheck } from './manager.js'

export interface McpProjectTrustOptions {
  home: string
  frontEnd: TrustFrontEnd
  /** Asks the user (chat); without it an interactive front end loads only remembered folders. */
  ask?: (folder: string, brings: readonly string[]) => Promise<boolean>
  /** `--no-project-config`: never load project servers. */
  disabled?: boolean
}

export function mcpProjectTrust(options: McpProjectTrustOptions): ProjectTrustCheck {
  const store = new ProjectTrustStore(options.home)
  return async (root, brings) => {
    const decision = await decideProjectTrust(store, {
      folder: root,
      frontEnd: options.frontEnd,
      brings,
      ...(options.ask ? { ask: options.ask } : {}),
      ...(options.disabled ? { disabled: true } : {}),
    })
    return decision.trusted
  }
}
