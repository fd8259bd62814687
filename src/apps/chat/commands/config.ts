// `/config`: the effective config, one setting a line, with where each value came from (the
// user's config file, a `--config` file, a flag, the environment, this session, or the
// default), and the project's own contributions (settings files, .mcp.json) after it.

import { describeConfig } from '../../../config/index.js'
import { type ChatHost, safe } from '../chat-host.js'

export function describeConfigCommand(chat: ChatHost, filter: string): void {
  const { agent, plan, colors } = chat
  const policy = chat.harness.ctx.get('permissions')
  const live = [
    ...(agent.model.model !== undefined
      ? [{ key: 'model.name', value: agent.model.model, source: 'this session (--model or /model)' }]
      : []),
    ...(agent.model.effort !== undefined
      ? [{ key: 'model.effort', value: agent.model.effort, source: 'this session (--effort or /effort)' }]
      : []),
    ...(policy && policy.modeOf(agent) !== plan.config.permissions.mode
      ? [
          {
            key: 'permissions.mode',
            value: policy.modeOf(agent),
            source: 'this session (--permission-mode or /permissions)',
          },
        ]
      : []),
  ]
  const rows = describeConfig(plan.config, process.env, live).filter((row) => row.key.includes(filter))
  if (rows.length === 0) {
    chat.say(colors.yellow(`no setting matches ${safe(filter)}`))
    return
  }
  const width = Math.min(36, Math.max(...rows.map((row) => row.key.length)))
  for (const row of rows) {
    const source = row.source === 'default' ? colors.dim('default') : colors.cyan(safe(row.source))
    chat.say(`${row.key.padEnd(width)}  ${safe(row.value)}  ${source}`)
  }
  if (filter !== '') return
  const state = policy?.stateOf(agent)
  if (state && state.files.length > 0)
    chat.say(colors.dim(`project  permission rules also from ${safe(state.files.join(', '))} (/permissions)`))
  const project = (chat.harness.ctx.get('mcp')?.status(agent.cwd) ?? []).filter(
    (server) => server.source.kind === 'project',
  )
  if (project.length > 0)
    chat.say(
      colors.dim(`project  MCP servers ${safe(project.map((s) => s.name).join(', '))} from .mcp.json (/mcp)`),
    )
  chat.say(
    colors.dim(
      `config file: ${safe(plan.config.source ?? 'none (every value is a default or from env/flags)')} · /config <text> filters`,
    ),
  )
}
