// Status lines for people (`/lsp` in chat, `dsh lsp status`): servers, roots, state, last error.

import { resolveCommand } from './roots.js'
import type { LspServerSpec, LspServerStatus } from './types.js'

/** One line per running or tried server; a line saying so when none was started. */
export function formatStatusLines(statuses: readonly LspServerStatus[]): string[] {
  if (statuses.length === 0)
    return ['No language server started yet (they start when a file of their language is touched).']
  return [...statuses]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.root < b.root ? -1 : 1))
    .map((s) => {
      const pid = s.pid !== undefined ? ` pid ${s.pid}` : ''
      const restarts = s.restarts > 0 ? `, ${s.restarts} restart${s.restarts === 1 ? '' : 's'}` : ''
      const error = s.lastError ? ` — last error: ${s.lastError}` : ''
      return `${s.id}  ${s.state}${pid}${restarts}  ${s.root}${error}`
    })
}

/** Each configured server with the command it would run from `cwd`, or how to install it. */
export function installedPresets(specs: readonly LspServerSpec[], cwd: string): string[] {
  return specs.map((spec) => {
    const command = resolveCommand(spec.command, cwd)
    const files = spec.extensions.map((e) => `.${e}`).join(' ')
    if (command?.fromProject)
      return `${spec.id}  installed in the project: ${command.path}, used in a trusted folder or under the sandbox  (${files})`
    if (command) return `${spec.id}  installed: ${command.path}  (${files})`
    return `${spec.id}  not installed${spec.install ? ` — install: ${spec.install}` : ''}  (${files})`
  })
}
