// `dsh` on a terminal: an interactive chat. Answers stream as they arrive; Ctrl-C
// interrupts the running turn (the session stays valid); Ctrl-C on an empty prompt or
// Ctrl-D exits. Slash commands switch, fork and describe sessions.

import { existsSync } from 'node:fs'
import { createInterface, type Interface } from 'node:readline'
import type { Context } from 'cordis'
import type { ToolCallInfo } from '../../agent/pipeline.js'
import { nextTurnNumber } from '../../agent/turn-runner.js'
import type { AgentHandle } from '../../agent/types.js'
import { toTerminalText } from '../../core/terminal-text.js'
import { packageVersion } from '../../core/version.js'
import type { Harness } from '../../harness/compose.js'
import { INIT_PROMPT } from '../../instructions/index.js'
import { DEFAULT_MODEL } from '../../llm/openai/config.js'
import { expandPromptCommand, promptCommands, statusLine } from '../../mcp/index.js'
import { describePermissions, isPermissionMode, PERMISSION_MODES } from '../../permissions/index.js'
import { type CustomCommand, discoverCommands, expandCommand } from '../../skills/index.js'
import { describeRewind, FileHistoryStore, rewindSession } from '../../tools/fs/index.js'
import { ExitCode, reportError } from './errors.js'
import { changeModelChoice, turnUsageLine } from './model-choice.js'
import type { AgentOptions } from './options.js'
import { type Colors, colorsFor, createStreamRenderer } from './render.js'
import { type AgentPlan, forkStored, openHarness, planAgent, type StartedAgent, startAgent } from './start.js'
import { handleTermination } from './termination.js'
import { formatAge } from './transcript.js'
import { askProjectTrust } from './trust-prompt.js'

const HELP = `commands:
  /help            this list
  /session         the session id and where its log file is
  /resume [<id>]   switch to a stored session (without an id: list this folder's recent ones)
  /fork            continue in a new session seeded with this one's completed turns
  /model [<name>]  show or change the model for the next turn (dsh models lists them)
  /effort [<level>] show or change the thinking effort: off, low, high or max
  /new             start a new session
  /init            ask the model to write a starter AGENTS.md for this project
  /permissions [<mode>]  show the permission mode and rules; switch mode (auto, default, acceptEdits, plan, bypassPermissions)
  /rewind [<turn>] restore files the file tools changed in that turn and later (default: the last turn)
  /<command> [args] a custom command from .dsh/commands or .claude/commands (listed by /help)
  /mcp             MCP servers: state, tools, where each came from
  /mcp__<server>__<prompt> [args]   send an MCP server's prompt
  /exit            leave (so do Ctrl-D, and Ctrl-C on an empty prompt)
Ctrl-C while the agent works interrupts the turn; the session stays valid.`

export async function chatCommand(options: AgentOptions): Promise<number> {
  const plan = planAgent(options)
  let chat: Chat | undefined
  // A project's hooks, .mcp.json servers, allow rules and skills load only once the user
  // trusts the folder (asked once): before the chat's prompt exists on a plain terminal
  // question, after that inside the chat.
  const harness = await openHarness(plan, {
    canAsk: true,
    trust: {
      frontEnd: 'interactive',
      disabled: options.projectConfig === false,
      ask: (folder, brings) => (chat ? chat.askTrust(folder, brings) : askProjectTrust(folder, brings)),
    },
  })
  try {
    const started = await startAgent(harness, plan, options)
    chat = new Chat(harness, plan, started)
    return await chat.run()
  } finally {
    await harness.dispose()
  }
}

class Chat {
  private readonly colors: Colors = colorsFor(process.stdout)
  private agent: AgentHandle
  private running: AbortController | undefined
  /** Bumped by Ctrl-C and exit: queued lines of an older generation are dropped. */
  private generation = 0
  private rl: Interface | undefined
  /** Set while a tool call waits for the user's yes or no: the next line answers it. */
  private pendingAnswer: ((line: string | undefined) => void) | undefined

  constructor(
    private readonly harness: Harness,
    private readonly plan: AgentPlan,
    started: StartedAgent,
  ) {
    this.agent = started.agent
    const { colors } = this
    const model = plan.model.model ?? plan.config.model.name ?? DEFAULT_MODEL
    this.say(colors.bold(`dsh ${packageVersion()}`) + colors.dim(` · ${model} · ${this.agent.cwd}`))
    this.say(colors.dim(`${describeStart(started)} · /help for commands · Ctrl-C interrupts · Ctrl-D exits`))
  }

  run(): Promise<number> {
    const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal, historySize: 200 })
    this.rl = rl
    rl.setPrompt(this.colors.bold(this.colors.green('> ')))
    const onInterrupt = () => this.interrupt()
    rl.on('SIGINT', onInterrupt)
    process.on('SIGINT', onInterrupt) // without a terminal, Ctrl-C arrives as a signal
    // SIGTERM/SIGHUP end the chat: the turn is cancelled, then the harness cleans up.
    const termination = handleTermination(() => rl.close(), { signals: ['SIGTERM', 'SIGHUP'] })
    // A tool call a policy or hook marked `ask` is put to the user (no answer is no).
    const approvals = this.harness.ctx.plugin({
      name: 'chat-approval',
      apply: (ctx: Context) => {
        ctx.on('tools/approve', (call, reason) => this.askApproval(call, reason))
      },
    })
    return new Promise<number>((resolve) => {
      let queue = Promise.resolve()
      // Lines typed while a turn runs wait their turn; Ctrl-C drops them with the turn.
      rl.on('line', (line) => {
        if (this.pendingAnswer) {
          this.pendingAnswer(line)
          return
        }
        const generation = this.generation
        queue = queue.then(() => (generation === this.generation ? this.handle(line.trim()) : undefined))
      })
      rl.on('close', () => {
        this.generation++
        this.running?.abort()
        process.off('SIGINT', onInterrupt)
        void queue.then(async () => {
          termination.dispose()
          await approvals.dispose()
          if (termination.signal === undefined) process.stdout.write('\n')
          resolve(termination.exitCode ?? ExitCode.Ok)
        })
      })
      rl.prompt()
    })
  }

  /** Asks whether a tool call may run; Ctrl-C, a cancelled turn or anything but yes is no. */
  private askApproval(call: ToolCallInfo, reason: string): Promise<boolean> {
    return new Promise((resolve) => {
      const finish = (line: string | undefined) => {
        this.pendingAnswer = undefined
        call.signal.removeEventListener('abort', onAbort)
        const allowed = /^y(es)?$/i.test(line?.trim() ?? '')
        this.say(this.colors.dim(allowed ? 'allowed' : 'denied'))
        resolve(allowed)
      }
      const onAbort = () => finish(undefined)
      if (call.signal.aborted) return finish(undefined)
      call.signal.addEventListener('abort', onAbort, { once: true })
      this.pendingAnswer = finish
      const { colors } = this
      process.stdout.write(
        `\n${colors.yellow('?')} ${colors.bold(call.name)} ${describeCall(call)}\n  ${reason}\n  allow? ${colors.dim('[y/N]')} `,
      )
    })
  }

  /** Asks whether a project folder may bring its own MCP servers; Ctrl-C or anything but yes is no. */
  askTrust(folder: string, brings: readonly string[]): Promise<boolean> {
    const signal = this.running?.signal
    return new Promise((resolve) => {
      const finish = (line: string | undefined) => {
        this.pendingAnswer = undefined
        signal?.removeEventListener('abort', onAbort)
        const trusted = /^y(es)?$/i.test(line?.trim() ?? '')
        this.say(this.colors.dim(trusted ? 'trusted (remembered for this folder)' : 'not trusted'))
        resolve(trusted)
      }
      const onAbort = () => finish(undefined)
      if (signal?.aborted) return finish(undefined)
      signal?.addEventListener('abort', onAbort, { once: true })
      this.pendingAnswer = finish
      const { colors } = this
      process.stdout.write(
        `\n${colors.yellow('?')} ${colors.bold(toTerminalText(folder))} brings its own ${toTerminalText(brings.join(', '))}.\n  Trust this folder? ${colors.dim('[y/N]')} `,
      )
    })
  }

  private interrupt(): void {
    const rl = this.rl!
    if (this.running) {
      this.generation++
      this.running.abort()
      return
    }
    if (rl.line.length > 0) {
      // Like a shell: Ctrl-C drops the typed line.
      process.stdout.write('^C\n')
      Object.assign(rl, { line: '', cursor: 0 })
      rl.prompt()
      return
    }
    rl.close()
  }

  private async handle(line: string): Promise<void> {
    try {
      if (line === '') return
      if (line.startsWith('/mcp__')) await this.mcpPrompt(line)
      else if (line.startsWith('/')) await this.command(line)
      else await this.turn(line)
    } catch (error) {
      reportError(error) // one line; the chat goes on with the current session
    } finally {
      if (!this.closed()) this.rl!.prompt()
    }
  }

  private async turn(prompt: string): Promise<void> {
    const controller = new AbortController()
    this.running = controller
    const unsubscribe = this.agent.onOutput(createStreamRenderer(process.stdout, this.colors))
    try {
      const result = await this.agent.prompt(prompt, { signal: controller.signal })
      this.say(this.colors.dim(turnUsageLine(this.agent, result.turn, this.harness.config.pricing)))
    } finally {
      unsubscribe()
      this.running = undefined
    }
  }

  private async command(line: string): Promise<void> {
    const [name, ...rest] = line.slice(1).split(/\s+/)
    const argument = rest.join(' ').trim()
    switch (name) {
      case 'help':
      case '?':
        this.say(HELP)
        for (const command of this.commands())
          this.say(
            `  /${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ''}  ${command.description ?? command.path}`,
          )
        return
      case 'init':
        await this.turn(INIT_PROMPT)
        return
      case 'permissions':
        this.permissions(argument)
        return
      case 'rewind':
        await this.rewind(argument)
        return
      case 'session':
        this.describeSession()
        return
      case 'resume':
        if (argument === '') await this.listRecent()
        else if (argument === this.agent.id) this.say(this.colors.dim('already in that session'))
        else {
          const resume = { resumeSessionId: argument, model: this.plan.model }
          await this.switchTo(() => this.harness.agents.resume(resume), 'resumed')
        }
        return
      case 'fork': {
        const parent = this.agent.id
        await this.switchTo(() => forkStored(this.harness, parent, this.plan.model), `forked from ${parent}`)
        return
      }
      case 'model':
      case 'effort':
        this.say(this.colors.dim(changeModelChoice(this.agent, this.plan, name, argument)))
        return
      case 'new':
        await this.switchTo(
          () => startAgent(this.harness, this.plan, {}).then((started) => started.agent),
          'new',
        )
        return
      case 'mcp':
        await this.describeMcp()
        return
      case 'exit':
      case 'quit':
        this.rl!.close()
        return
      default: {
        const custom = this.commands().find((command) => command.name === name)
        if (custom) await this.turn(expandCommand(custom, argument))
        else this.say(this.colors.yellow(`unknown command /${name} (try /help)`))
      }
    }
  }

  /** The custom commands of this session's project and the harness home. */
  private commands(): CustomCommand[] {
    const policy = this.harness.ctx.get('permissions')
    return discoverCommands({
      home: this.plan.config.home,
      cwd: this.agent.cwd,
      projectTrusted: policy?.projectTrusted(this.agent.cwd) ?? false,
      includeUserClaude: this.plan.config.skills.includeUserClaude,
    })
  }

  private permissions(argument: string): void {
    const policy = this.harness.ctx.get('permissions')
    if (!policy) {
      this.say(this.colors.yellow('no permission policy is loaded'))
      return
    }
    if (argument !== '') {
      if (!isPermissionMode(argument)) {
        this.say(this.colors.yellow(`unknown mode ${argument}; modes: ${PERMISSION_MODES.join(', ')}`))
        return
      }
      policy.setMode(this.agent, argument)
      if (argument === 'bypassPermissions')
        this.say(
          this.colors.yellow('warning: every tool call now runs without asking, also outside the project'),
        )
    }
    for (const line of describePermissions(policy.stateOf(this.agent))) this.say(toTerminalText(line))
  }

  private async rewind(argument: string): Promise<void> {
    const last = nextTurnNumber(this.agent.session.events) - 1
    const turn = argument === '' ? last : Number(argument)
    if (!Number.isInteger(turn) || turn < 1 || turn > last) {
      this.say(this.colors.yellow(`/rewind <turn>: a turn from 1 to ${last}`))
      return
    }
    const outcome = await rewindSession(this.agent.session, turn, new FileHistoryStore(this.plan.config.home))
    for (const line of describeRewind(turn, outcome)) this.say(toTerminalText(line))
  }

  /** Starts the next agent first, so a failure (unknown id) keeps the current one. */
  private async switchTo(start: () => Promise<AgentHandle>, how: string): Promise<void> {
    const previous = this.agent
    const next = await start()
    this.agent = next
    await this.harness.agents.dispose(previous.id)
    this.say(this.colors.dim(`session ${next.id} (${how})`))
  }

  private async describeMcp(): Promise<void> {
    const mcp = this.harness.ctx.get('mcp')
    // Starts what this session sees (and asks about the project once), then lists it.
    if (mcp) await mcp.prepare(this.agent)
    const rows = mcp?.status(this.agent.cwd) ?? []
    if (rows.length === 0) this.say(this.colors.dim('no MCP servers (add one with `dsh mcp add`)'))
    for (const row of rows) this.say(statusLine(row))
    for (const command of mcp ? await promptCommands(mcp, this.agent) : []) {
      this.say(
        this.colors.dim(`/${command.name} ${command.argumentNames.map((name) => `<${name}>`).join(' ')}`),
      )
    }
  }

  private async mcpPrompt(line: string): Promise<void> {
    const mcp = this.harness.ctx.get('mcp')
    if (mcp) await mcp.prepare(this.agent)
    const text = mcp ? await expandPromptCommand(mcp, this.agent, line) : undefined
    if (text === undefined) {
      this.say(this.colors.yellow(`unknown command ${line.split(/\s+/)[0]} (try /mcp)`))
      return
    }
    await this.turn(text)
  }

  private describeSession(): void {
    const location = this.harness.ctx.get('sessionPersistence')?.locate(this.agent.session.header)
    const header = this.agent.session.header
    this.say(`session  ${this.agent.id}`)
    this.say(`folder   ${this.agent.cwd}`)
    if (header.parentSession !== undefined) this.say(`parent   ${header.parentSession}`)
    if (!location) {
      this.say(`log      no dedicated file (the ${this.plan.config.persistence.backend} backend keeps none)`)
      return
    }
    const pending = existsSync(location.path)
      ? ''
      : this.colors.dim(' (not written yet: the first turn creates it)')
    this.say(`log      ${location.path}${pending}`)
  }

  private async listRecent(): Promise<void> {
    const stored = await this.harness.sessions.listStored()
    const here = stored.filter((summary) => summary.header.cwd === this.agent.cwd).slice(0, 10)
    if (here.length === 0) {
      this.say(this.colors.dim('no stored sessions in this folder'))
      return
    }
    const now = Date.now()
    for (const summary of here) {
      const mark = summary.header.id === this.agent.id ? '*' : ' '
      const title = summary.title ?? '(no prompt yet)'
      this.say(
        `${mark} ${summary.header.id}  ${this.colors.dim(formatAge(summary.lastActivity, now))}  ${title}`,
      )
    }
    this.say(this.colors.dim('/resume <id> switches to one of them'))
  }

  private closed(): boolean {
    return (this.rl as unknown as { closed?: boolean } | undefined)?.closed === true
  }

  private say(text: string): void {
    process.stdout.write(`${text}\n`)
  }
}

/** The call's command (bash) or its arguments, on one short line. */
function describeCall(call: ToolCallInfo): string {
  const input = call.input as { command?: unknown } | undefined
  const text = typeof input?.command === 'string' ? input.command : call.arguments
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > 200 ? `${line.slice(0, 199)}…` : line
}

function describeStart(started: StartedAgent): string {
  const how =
    started.how === 'forked' ? `forked from ${started.parent}` : started.how === 'resumed' ? 'resumed' : 'new'
  return `session ${started.agent.id} (${how})`
}
