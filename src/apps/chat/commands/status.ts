// `/status`: the session at a glance — model, effort, permission mode, session id, how full
// the context is, the cost so far, MCP servers, hooks, the sandbox and the web tools.
// Reads state only: nothing is started (unlike `/mcp`, which starts the servers to list them).

import { homedir } from 'node:os'
import { join } from 'node:path'
import { contextPercent } from '../../../context/index.js'
import { toTerminalId } from '../../../core/terminal-text.js'
import { claudeCodeDialect, codexDialect, HOOK_FILE_LOCATIONS, listHooks } from '../../../hooks/index.js'
import { statusLine } from '../../../mcp/index.js'
import { formatCost } from '../../../usage/index.js'
import { type ChatHost, safe } from '../chat-host.js'
import { currentEffort, currentModel } from '../model-choice.js'
import { formatTokens } from '../status-line.js'

export function describeStatus(chat: ChatHost): void {
  const { agent, plan, colors } = chat
  const config = plan.config
  const policy = chat.harness.ctx.get('permissions')
  const row = (name: string, value: string) => chat.say(`${name.padEnd(12)} ${value}`)
  row('model', safe(currentModel(agent, plan)))
  row('effort', safe(currentEffort(agent, plan)))
  row('mode', policy ? policy.modeOf(agent) : colors.yellow('no permission policy loaded'))
  row('session', `${toTerminalId(agent.id)}  ${colors.dim(safe(agent.cwd))}`)
  const usage = agent.contextUsage()
  const percent = usage ? contextPercent(usage) : undefined
  row(
    'context',
    usage === undefined
      ? colors.dim('not measured yet')
      : `${percent !== undefined ? `${percent}% · ` : ''}${formatTokens(usage.tokens)}${usage.window !== undefined ? ` of ${formatTokens(usage.window)}` : ''} tokens`,
  )
  const tokens = chat.sessionTokens
  row(
    'cost',
    `${formatCost(tokens.cost, tokens.currency)} (${formatTokens(tokens.total)} tokens, /cost for more)`,
  )
  const servers = chat.harness.ctx.get('mcp')?.status(agent.cwd) ?? []
  row('MCP', servers.length === 0 ? colors.dim('no servers') : `${servers.length} server(s)`)
  for (const server of servers) chat.say(`             ${safe(statusLine(server))}`)
  row('hooks', hookSummary(chat))
  row('sandbox', sandboxSummary(config))
  const search = chat.harness.ctx.get('tools')?.get('web_search') !== undefined
  row(
    'web_search',
    search
      ? 'offered (DeepSeek Search API)'
      : colors.dim("not offered: only with DeepSeek's own base URL and key, or web.search: deepseek"),
  )
}

function hookSummary(chat: ChatHost): string {
  const config = chat.plan.config
  const user = (dialect: 'claude-code' | 'codex', on: boolean) =>
    on ? [join(homedir(), HOOK_FILE_LOCATIONS[dialect].user)] : []
  const trusted = chat.harness.ctx.get('permissions')?.projectTrusted(chat.agent.cwd) ?? false
  const listing = listHooks({
    cwd: chat.agent.cwd,
    files: {
      'claude-code': [
        ...user('claude-code', config.hooks.claudeCodeUserSettings),
        ...config.hooks.claudeCode,
      ],
      codex: [...user('codex', config.hooks.codexUserHooks), ...config.hooks.codex],
    },
    supported: { 'claude-code': claudeCodeDialect.events, codex: codexDialect.events },
    projectFiles: config.hooks.projectFiles && trusted,
  })
  const files = new Set(listing.rows.map((hook) => hook.file))
  if (listing.rows.length === 0) return chat.colors.dim('none loaded (/hooks lists the files)')
  const problems =
    listing.problems.length > 0 ? chat.colors.yellow(` · ${listing.problems.length} problem(s)`) : ''
  return `${listing.rows.length} handler(s) from ${files.size} file(s)${problems}`
}

function sandboxSummary(config: ChatHost['plan']['config']): string {
  const mode = config.sandbox ?? 'off'
  if (mode === 'off') return 'off (commands run unconfined)'
  return `${mode}, network ${config.sandboxNetwork ? 'on' : 'off'} (${safe(config.sandboxBwrapPath)})`
}
