// What each slash command does in the interactive chat: switch, fork and describe
// sessions, show tokens and hooks. Output goes above the input through `chat.say`.

import { existsSync } from 'node:fs'
import { nextTurnNumber } from '../../agent/turn-runner.js'
import { toTerminalId } from '../../core/terminal-text.js'
import { resolveSessionId, titleData } from '../../history/index.js'
import { INIT_PROMPT } from '../../instructions/index.js'
import { expandPromptCommand, promptCommands, statusLine } from '../../mcp/index.js'
import { givenTitle, sessionTitle } from '../../persistence/index.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import { type CustomCommand, discoverCommands, expandCommand } from '../../skills/index.js'
import { describeRewind, FileHistoryStore, rewindSession } from '../../tools/fs/index.js'
import { formatCost } from '../../usage/index.js'
import { formatAge } from '../shared/age.js'
import { forkStored, restoredSettings, startAgent } from '../shared/start.js'
import { type ChatHost, safe } from './chat-host.js'
import { describeConfigCommand } from './commands/config.js'
import { doctor } from './commands/doctor.js'
import { addNote, describeMemory, isMemoryNote } from './commands/memory.js'
import { changeModel, listRewindable } from './commands/model.js'
import { permissionsCommand } from './commands/permissions.js'
import { describeStatus } from './commands/status.js'
import { closestCommand, findCommand, helpText } from './commands.js'
import { contextLines } from './context-view.js'
import { describeLsp } from './lsp-view.js'
import { changeModelChoice } from './model-choice.js'
import { pickerSource } from './picker-source.js'
import { recapLines } from './recap.js'
import { formatTokens } from './status-line.js'
import { describeTerminals } from './terminals-view.js'

export async function runChatCommand(chat: ChatHost, line: string): Promise<void> {
  const [typed = '', ...rest] = line.slice(1).split(/\s+/)
  const argument = rest.join(' ').trim()
  const command = findCommand(typed)
  const { colors } = chat
  if (isMemoryNote(line)) {
    addNote(chat, line)
    return
  }
  if (typed.startsWith('mcp__')) {
    await mcpPrompt(chat, line)
    return
  }
  switch (command?.name) {
    case 'help':
      chat.say(helpText(chat.columns - 1))
      for (const custom of customCommands(chat)) {
        chat.say(
          `  /${custom.name}${custom.argumentHint ? ` ${custom.argumentHint}` : ''}  ${safe(custom.description ?? custom.path)}`,
        )
      }
      return
    case 'init':
      await chat.runPrompt(INIT_PROMPT)
      return
    case 'permissions':
      permissionsCommand(chat, argument)
      return
    case 'rewind':
      await rewind(chat, argument)
      return
    case 'session':
      describeSession(chat)
      return
    case 'rename':
      await rename(chat, argument)
      return
    case 'sessions':
      await listRecent(chat)
      return
    case 'resume':
      if (argument === '') await pickAndResume(chat)
      else await resume(chat, argument)
      return
    case 'fork':
      await fork(chat, argument)
      return
    case 'clear':
      await switchTo(
        chat,
        () => startAgent(chat.harness, chat.plan, {}).then((started) => started.agent),
        'new',
      )
      return
    case 'model':
      await changeModel(chat, argument)
      return
    case 'effort':
      chat.say(safe(changeModelChoice(chat.agent, chat.plan, command.name, argument)))
      chat.refresh()
      return
    case 'compact':
      await chat.compact(argument)
      return
    case 'context':
      for (const line of contextLines(chat.agent.contextUsage(), colors)) chat.say(line)
      return
    case 'cost': {
      const tokens = chat.sessionTokens
      chat.say(
        `tokens  ${formatTokens(tokens.total)} in this session: ${formatTokens(tokens.prompt)} prompt ` +
          `(${formatTokens(tokens.cached)} from cache), ${formatTokens(tokens.completion)} completion`,
      )
      chat.say(`cost    ${formatCost(tokens.cost, tokens.currency)} (estimated from the price table)`)
      chat.say(`context ${formatTokens(tokens.context)} in the last request`)
      return
    }
    case 'hooks':
      describeHooks(chat)
      return
    case 'status':
      describeStatus(chat)
      return
    case 'config':
      describeConfigCommand(chat, argument)
      return
    case 'doctor':
      await doctor(chat)
      return
    case 'memory':
      describeMemory(chat)
      return
    case 'mcp':
      await describeMcp(chat)
      return
    case 'lsp':
      describeLsp(chat)
      return
    case 'terminals':
      describeTerminals(chat, argument)
      return
    case 'exit':
      chat.exit()
      return
    default: {
      const custom = customCommands(chat).find((candidate) => candidate.name === typed)
      if (custom) {
        await chat.runPrompt(expandCommand(custom, argument))
        return
      }
      const suggestion = closestCommand(typed)
      chat.say(
        colors.yellow(`unknown command /${safe(typed)}`) +
          (suggestion !== undefined
            ? colors.yellow(` — did you mean /${suggestion}?`)
            : colors.dim(' (try /help)')),
      )
    }
  }
}

/** Starts the next agent first, so a failure (unknown id) keeps the current one. */
async function switchTo(chat: ChatHost, start: () => Promise<AgentHandle>, how: string): Promise<void> {
  const previous = chat.agent
  const next = await start()
  chat.setAgent(next)
  await chat.harness.agents.dispose(previous.id)
  chat.say(chat.colors.dim(`session ${toTerminalId(next.id)} (${how})`))
}

async function resume(chat: ChatHost, argument: string): Promise<void> {
  let id = argument
  if (/^\d+$/.test(argument)) {
    const here = await recentSessions(chat)
    const picked = here[Number(argument) - 1]
    if (!picked) {
      chat.say(chat.colors.yellow(`no session number ${argument} (see /resume)`))
      return
    }
    id = picked.header.id
  } else {
    // An exact id, or a unique prefix of 6+ characters; else one line naming what is wrong.
    id = await resolveSessionId(chat.harness.sessions, argument)
  }
  if (id === chat.agent.id) {
    chat.say(chat.colors.dim('already in that session'))
    return
  }
  // The command line's own choices win; `/model` and `/effort` of the session left behind do not.
  await switchTo(
    chat,
    () => chat.harness.agents.resume({ resumeSessionId: id, model: chat.plan.flagModel }),
    'resumed',
  )
  sayRecap(chat)
}

/** `/fork` (after the last completed turn) or `/fork N` (after turn N), with a recap. */
async function fork(chat: ChatHost, argument: string): Promise<void> {
  const parent = chat.agent.id
  let atTurn: number | undefined
  if (argument !== '') {
    const last = nextTurnNumber(chat.agent.session.events) - 1
    atTurn = Number(argument)
    if (!/^\d+$/.test(argument) || atTurn < 1 || atTurn > last) {
      chat.say(
        chat.colors.yellow(last === 0 ? '/fork: no turns yet' : `/fork <turn>: a turn from 1 to ${last}`),
      )
      return
    }
  }
  const at = atTurn !== undefined ? ` at turn ${atTurn}` : ''
  await switchTo(
    chat,
    () => forkStored(chat.harness, parent, chat.plan.flagModel, atTurn),
    `forked from ${toTerminalId(parent)}${at}`,
  )
  sayRecap(chat)
}

function sayRecap(chat: ChatHost): void {
  const restored = restoredSettings(chat.harness, chat.agent, chat.plan)
  for (const line of recapLines(chat.agent.session.events, chat.colors, { cwd: chat.agent.cwd, restored }))
    chat.say(line)
}

async function recentSessions(chat: ChatHost) {
  const stored = await chat.harness.sessions.listStored()
  return stored
    .filter((summary) => summary.header.cwd === chat.agent.cwd && summary.header.origin !== 'subagent')
    .slice(0, 20)
}

/**
 * The resume picker; Enter resumes the chosen session (with its recap). `atStart` (`dsh -r`
 * with no id): Esc leaves the chat, since nothing was asked for but a past session.
 */
export async function pickAndResume(chat: ChatHost, atStart = false): Promise<void> {
  const source = await pickerSource(chat)
  if (source.rows.length === 0) {
    chat.say(chat.colors.dim('no stored sessions in this folder to resume'))
    return
  }
  const id = await chat.questions.pickSession(source)
  if (id !== undefined) await resume(chat, id)
  else if (atStart) chat.exit(0)
}

async function listRecent(chat: ChatHost): Promise<void> {
  const here = await recentSessions(chat)
  const { colors } = chat
  if (here.length === 0) {
    chat.say(colors.dim('no stored sessions in this folder'))
    return
  }
  const now = Date.now()
  here.forEach((summary, index) => {
    const mark = summary.header.id === chat.agent.id ? '*' : ' '
    const title = safe(summary.title ?? '(no prompt yet)')
    chat.say(
      `${mark}${String(index + 1).padStart(3)}  ${toTerminalId(summary.header.id)}  ${colors.dim(formatAge(summary.lastActivity, now).padEnd(4))} ${summary.turns ?? 0} turns  ${colors.dim((summary.outcome ?? 'new').padEnd(9))} ${title}`,
    )
  })
  chat.say(colors.dim('/resume <n> or /resume <id> switches to one, with a recap'))
}

function describeSession(chat: ChatHost): void {
  const agent = chat.agent
  const header = agent.session.header
  const location = chat.harness.ctx.get('sessionPersistence')?.locate(header)
  chat.say(`session  ${toTerminalId(agent.id)}`)
  chat.say(`title    ${describeTitle(agent)}`)
  chat.say(`folder   ${safe(agent.cwd)}`)
  if (header.parentSession !== undefined) chat.say(`parent   ${toTerminalId(header.parentSession)}`)
  if (!location) {
    chat.say(`log      no dedicated file (the ${chat.plan.config.persistence.backend} backend keeps none)`)
    return
  }
  const pending = existsSync(location.path)
    ? ''
    : chat.colors.dim(' (not written yet: the first turn creates it)')
  chat.say(`log      ${safe(location.path)}${pending}`)
}

/**
 * `/rename TITLE` appends a person's `session/title` to the live log and flushes it, so
 * `/sessions` and `dsh sessions list` in another shell show it at once (as after
 * `dsh sessions rename`), not after the next turn; `/rename` shows the title.
 */
async function rename(chat: ChatHost, argument: string): Promise<void> {
  if (argument === '') {
    chat.say(`title  ${describeTitle(chat.agent)}`)
    return
  }
  // One line, at most 200 characters, no control characters: refused in one line otherwise.
  const data = titleData(argument)
  const { session } = chat.agent
  session.append('session/title', data, { ignorable: true })
  await chat.harness.sessions.flush(session)
  chat.say(`renamed to ${safe(data.title)}`)
}

function describeTitle(agent: AgentHandle): string {
  const { events, header } = agent.session
  const given = givenTitle(events, header.seedLength ?? 0)
  if (given !== undefined) return safe(given)
  const first = sessionTitle(events, header.seedLength ?? 0)
  return first !== undefined ? `${safe(first)} (its first prompt)` : '(none yet: the first prompt becomes it)'
}

function describeHooks(chat: ChatHost): void {
  const { claudeCode, codex } = chat.plan.config.hooks
  const files = [
    ...claudeCode.map((file) => ({ dialect: 'Claude Code', file })),
    ...codex.map((file) => ({ dialect: 'Codex', file })),
  ]
  if (files.length === 0) {
    chat.say(chat.colors.dim('no hook files configured (hooks.claudeCode / hooks.codex in the config)'))
    return
  }
  for (const { dialect, file } of files) {
    const state = existsSync(file) ? '' : chat.colors.yellow(' (missing)')
    chat.say(`${dialect.padEnd(12)} ${safe(file)}${state}`)
  }
}

async function describeMcp(chat: ChatHost): Promise<void> {
  const mcp = chat.harness.ctx.get('mcp')
  // Starts what this session sees (and asks about the project once), then lists it.
  if (mcp) await mcp.prepare(chat.agent)
  const rows = mcp?.status(chat.agent.cwd) ?? []
  if (rows.length === 0) chat.say(chat.colors.dim('no MCP servers (add one with `dsh mcp add`)'))
  for (const row of rows) chat.say(safe(statusLine(row)))
  for (const command of mcp ? await promptCommands(mcp, chat.agent) : []) {
    const args = command.argumentNames.map((name) => `<${name}>`).join(' ')
    chat.say(chat.colors.dim(safe(`/${command.name} ${args}`)))
  }
}

/** `/mcp__<server>__<prompt> args`: the server's prompt, sent as this turn's text. */
async function mcpPrompt(chat: ChatHost, line: string): Promise<void> {
  const mcp = chat.harness.ctx.get('mcp')
  if (mcp) await mcp.prepare(chat.agent)
  const text = mcp ? await expandPromptCommand(mcp, chat.agent, line) : undefined
  if (text === undefined) {
    chat.say(chat.colors.yellow(`unknown command ${safe(line.split(/\s+/)[0] ?? '')} (try /mcp)`))
    return
  }
  await chat.runPrompt(text)
}

/** The custom commands of this session's project and the harness home (.dsh/commands, .claude/commands). */
function customCommands(chat: ChatHost): CustomCommand[] {
  const policy = chat.harness.ctx.get('permissions')
  return discoverCommands({
    home: chat.plan.config.home,
    cwd: chat.agent.cwd,
    projectTrusted: policy?.projectTrusted(chat.agent.cwd) ?? false,
    includeUserClaude: chat.plan.config.skills.includeUserClaude,
  })
}

async function rewind(chat: ChatHost, argument: string): Promise<void> {
  if (argument === '') {
    listRewindable(chat)
    return
  }
  const last = nextTurnNumber(chat.agent.session.events) - 1
  const turn = Number(argument)
  if (!Number.isInteger(turn) || turn < 1 || turn > last) {
    chat.say(chat.colors.yellow(`/rewind <turn>: a turn from 1 to ${last}`))
    return
  }
  const outcome = await rewindSession(chat.agent.session, turn, new FileHistoryStore(chat.plan.config.home))
  for (const line of describeRewind(turn, outcome)) chat.say(safe(line))
}
