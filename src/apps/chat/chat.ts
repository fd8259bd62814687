// The interactive chat on a terminal: wires keys → input box, prompts → agent turns
// (one at a time; the rest queue), agent output → transcript view, and draws it all
// through the screen's live region. Slash commands live in chat-commands.ts, what a prompt
// attaches in outgoing-prompt.ts, the status line's figures in status-line.ts.

import type { Context } from 'cordis'
import { errorMessage } from '../../core/errors.js'
import type { Harness } from '../../harness/compose.js'
import { DEFAULT_MAX_RETRIES } from '../../llm/openai/config.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import { resolvePriceTable } from '../../usage/index.js'
import { type Colors, colorsFor } from '../shared/render.js'
import type { AgentPlan, StartedAgent } from '../shared/start.js'
import { handleTermination } from '../shared/termination.js'
import { runChatCommand } from './chat-commands.js'
import { type ChatHost, safe } from './chat-host.js'
import { cycleMode } from './commands/permissions.js'
import { commandNames, isCommandLine } from './commands.js'
import type { PromptHistory } from './history.js'
import { InputBox, type KeyPress } from './input.js'
import { type KeySource, listenToKeys } from './keys.js'
import { currentEffort, currentModel, turnUsageLine } from './model-choice.js'
import { goodbyeLine, welcomeLines } from './notices.js'
import { prepareOutgoing } from './outgoing-prompt.js'
import { ChatQuestions } from './questions.js'
import { type LiveFrame, Screen } from './screen.js'
import { type SessionTokens, StatusMeter } from './status-line.js'
import { terminalTail } from './terminals-view.js'
import { TranscriptView } from './transcript-view.js'

/** What the chat needs once the harness and the agent exist. */
export interface ChatSession {
  harness: Harness
  plan: AgentPlan
  started: StartedAgent
}

export class TerminalChat implements ChatHost {
  readonly colors: Colors
  readonly screen: Screen
  private readonly input: InputBox
  private readonly transcript: TranscriptView
  private keys: KeySource | undefined
  private session: ChatSession | undefined
  private agentHandle: AgentHandle | undefined
  /** Typed prompts and commands waiting their turn, with what writes each to the history file. */
  private readonly queue: { text: string; persist: () => void }[] = []
  private running: AbortController | undefined
  readonly questions: ChatQuestions
  private hint: string | undefined
  private readonly status = new StatusMeter()
  private ticker: NodeJS.Timeout | undefined
  private draining = false
  private finish: ((code: number) => void) | undefined
  private readonly finished: Promise<number>

  constructor(
    private readonly stdin: NodeJS.ReadStream,
    private readonly stdout: NodeJS.WriteStream,
    history: PromptHistory,
    private readonly cwd: string,
  ) {
    this.colors = colorsFor(stdout)
    this.finished = new Promise((resolve) => {
      this.finish = resolve
    })
    this.screen = new Screen(stdout, () => this.frame())
    this.transcript = new TranscriptView(
      this.colors,
      () => this.screen.columns,
      (lines) => this.screen.commit(lines),
    )
    this.transcript.terminalTail = terminalTail(this)
    this.questions = new ChatQuestions({
      colors: this.colors,
      say: (text) => this.say(text),
      schedule: () => this.screen.schedule(),
      allowAlways: (call, rule) => this.harness.ctx.get('permissions')!.allowAlways(call.agent, rule),
      interrupt: () => this.interrupt(),
    })
    this.input = new InputBox(
      history,
      commandNames,
      () => this.agentHandle?.cwd ?? cwd,
      this.inputActions(),
      this.colors,
    )
  }

  /** Starts reading keys at once, so nothing typed or pasted while the chat starts is lost. */
  listen(): void {
    this.keys = listenToKeys(this.stdin, this.stdout, (key) => this.key(key))
    this.stdout.on('resize', this.onResize)
    this.screen.refresh()
  }

  get agent(): AgentHandle {
    return this.agentHandle!
  }

  /** Attaches the started agent; prompts typed so far start running. */
  attach(session: ChatSession): Promise<number> {
    this.session = session
    for (const line of welcomeLines(
      session.started,
      currentModel(session.started.agent, session.plan),
      this.colors,
    ))
      this.say(line)
    this.setAgent(session.started.agent)
    const approvals = session.harness.ctx.plugin({
      name: 'chat-approval',
      apply: (ctx: Context) => {
        ctx.on('tools/approve', (call, reason) => this.questions.askApproval(call, reason))
        // The adapter's retry notices (one model request at a time runs in the chat).
        ctx.on('llm/retry', (info) => {
          this.transcript.retry(info, session.plan.config.model.maxRetries ?? DEFAULT_MAX_RETRIES)
          this.screen.schedule()
        })
      },
    })
    // SIGTERM/SIGHUP end the chat: the turn is cancelled, then the harness cleans up.
    const termination = handleTermination((_signal, exitCode) => this.exit(exitCode), {
      signals: ['SIGTERM', 'SIGHUP'],
    })
    void this.drain()
    return this.finished.finally(async () => {
      termination.dispose()
      await approvals.dispose()
    })
  }

  /** Replaces the live agent (resume, fork, clear); the status line follows it. */
  setAgent(agent: AgentHandle): void {
    this.agentHandle = agent
    this.status.follow(agent, resolvePriceTable(this.harness.config.pricing))
    this.screen.schedule()
  }

  get harness(): Harness {
    return this.session!.harness
  }

  get plan(): AgentPlan {
    return this.session!.plan
  }

  get columns(): number {
    return this.screen.columns
  }

  get sessionTokens(): SessionTokens {
    return this.status.tokens
  }

  /** Redraws the live region (status line) soon. */
  refresh(): void {
    this.screen.schedule()
  }

  /** Prints finished lines above the input. */
  say(text: string): void {
    this.screen.commit(text.split('\n'))
  }

  /**
   * A harness log line (a warning): above the input while the chat holds the terminal —
   * a write of its own to stderr would land inside the live region and be erased with it.
   */
  notice(line: string): void {
    if (this.keys) this.say(this.colors.yellow(safe(line)))
    else process.stderr.write(`${line}\n`)
  }

  /**
   * Leaves the chat: ends the running turn, restores the terminal, and leaves one clean
   * last line naming the session and how to come back, as Codex and Claude Code do.
   */
  exit(code = 0): void {
    this.queue.length = 0
    this.running?.abort()
    this.questions.cancel()
    if (this.keys && this.agentHandle) this.screen.commit([goodbyeLine(this.agentHandle.id, this.colors)])
    this.close()
    this.finish?.(code)
  }

  /** Restores the terminal (idempotent). */
  close(): void {
    if (this.ticker) clearInterval(this.ticker)
    this.ticker = undefined
    this.status.stop()
    this.stdout.off('resize', this.onResize)
    if (this.keys) {
      this.screen.close()
      this.keys.close()
      this.keys = undefined
    }
  }

  private onResize = () => this.screen.refresh()

  private inputActions() {
    return {
      submit: (text: string, persist: () => void) => this.submit(text, persist),
      interrupt: () => this.interrupt(),
      exit: () => this.exit(),
      toggleReasoning: () => this.say(this.transcript.ctrlO()),
      cycleMode: () => {
        // Before the agent is attached there is no mode to change.
        if (this.agentHandle) cycleMode(this)
      },
      changed: () => this.screen.schedule(),
      hint: (text: string | undefined) => {
        this.hint = text
      },
    }
  }

  private key(key: KeyPress): void {
    if (this.questions.key(key)) return
    this.input.key(key)
  }

  private submit(text: string, persist: () => void): void {
    if (text.trim() === '') return
    this.queue.push({ text, persist })
    void this.drain()
  }

  /** Runs queued prompts and commands one after another, once the agent exists. */
  private async drain(): Promise<void> {
    if (this.draining || this.session === undefined) return
    this.draining = true
    try {
      while (this.queue.length > 0 && this.keys !== undefined) {
        const { text: next, persist } = this.queue.shift()!
        this.screen.schedule()
        if (isCommandLine(next)) {
          persist()
          await this.command(next.trim())
        } else await this.turn(next, persist)
      }
    } finally {
      this.draining = false
    }
  }

  private async command(line: string): Promise<void> {
    this.say(this.colors.bold(this.colors.green('> ')) + safe(line))
    try {
      await runChatCommand(this, line)
    } catch (error) {
      this.say(this.colors.red(safe(errorMessage(error))))
    }
  }

  /** Runs a prompt as a turn now (commands such as /init and custom commands). */
  runPrompt(text: string): Promise<void> {
    return this.turn(text)
  }

  /** `persist` writes the prompt to the history file unless a UserPromptSubmit hook blocks it. */
  private async turn(text: string, persist?: () => void): Promise<void> {
    const agent = this.agent
    const say = (line: string) => this.say(line)
    const outgoing = await prepareOutgoing(text, agent.cwd, this.harness, this.input.images, this.colors, say)
    if (outgoing === undefined) return // a bad image: one line, nothing sent
    const { prompt, images } = outgoing
    await this.live(async (signal) => {
      try {
        const result = await agent.prompt(prompt, { signal, ...(images.length ? { images } : {}) })
        if (result.reason !== 'blocked') persist?.()
        this.say(this.colors.dim(safe(turnUsageLine(agent, result.turn, this.harness.config.pricing))))
      } catch (error) {
        this.say(this.colors.red(safe(errorMessage(error))))
      }
    })
  }

  /**
   * `/compact`: compacts the context now, with progress in the transcript; Ctrl-C cancels it
   * and leaves the session as it was.
   */
  compact(instructions: string): Promise<void> {
    const agent = this.agent
    return this.live(async (signal) => {
      try {
        await agent.compact({ ...(instructions !== '' ? { instructions } : {}), signal })
      } catch (error) {
        this.transcript.compactionStopped()
        if (signal.aborted) this.say(this.colors.yellow('(compaction cancelled; the session is unchanged)'))
        else this.say(this.colors.red(safe(errorMessage(error))))
      }
    })
  }

  /** Runs agent work that Ctrl-C cancels, its live output drawn in the transcript. */
  private async live(work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const agent = this.agent
    const controller = new AbortController()
    this.running = controller
    const unsubscribe = agent.onOutput((output) => {
      this.transcript.handle(output)
      this.screen.schedule()
    })
    this.ticker = setInterval(() => this.screen.schedule(), 100)
    try {
      await work(controller.signal)
    } finally {
      clearInterval(this.ticker)
      this.ticker = undefined
      unsubscribe()
      this.running = undefined
      this.status.measure(agent)
      this.screen.schedule()
    }
  }

  private interrupt(): void {
    if (this.running) {
      this.running.abort()
      // Queued prompts go back into the input, so nothing typed is lost.
      if (this.queue.length > 0)
        this.input.restore(
          this.queue
            .splice(0)
            .map((item) => item.text)
            .join('\n'),
        )
      return
    }
    if (!this.input.empty) {
      this.input.buffer.clear()
      this.screen.schedule()
      return
    }
    this.exit()
  }

  /**
   * Asks whether a project folder may bring its own hooks, MCP servers, allow rules and
   * skills. Works from the first moment (keys are read before the harness exists); only
   * `y` trusts, and a yes is remembered by the trust store.
   */
  askTrust(folder: string, brings: readonly string[]): Promise<boolean> {
    if (this.keys === undefined) return Promise.resolve(false)
    return this.questions.askTrust(folder, brings)
  }

  /** The live region: hint, transcript's live part, queue, input (or approval), status. */
  private frame(): LiveFrame {
    const { colors } = this
    const lines: string[] = []
    lines.push(...this.transcript.live())
    for (const { text: queued } of this.queue) {
      lines.push(
        colors.dim(`  queued: ${safe(queued.split('\n')[0] ?? '')}${queued.includes('\n') ? ' …' : ''}`),
      )
    }
    if (this.hint !== undefined) lines.push(colors.dim(safe(this.hint)))
    const question = this.questions.frame()
    if (question) {
      const top = lines.length
      lines.push(...question.lines, this.statusLine())
      return { lines, cursor: { row: top + question.row, column: question.column } }
    }
    const box = this.input.render()
    const top = lines.length
    lines.push(...box.lines, this.statusLine())
    return { lines, cursor: { row: top + box.cursor.row, column: box.cursor.column } }
  }

  private statusLine(): string {
    const agent = this.agentHandle
    if (!agent || !this.session) return this.colors.dim('starting…')
    const { plan } = this.session
    return this.status.render(
      {
        model: safe(currentModel(agent, plan)),
        effort: safe(currentEffort(agent, plan)),
        sessionId: agent.id,
        cwd: safe(agent.cwd),
        mode: this.harness.ctx.get('permissions')?.modeOf(agent),
        queued: this.queue.length,
      },
      this.colors,
      this.screen.columns,
    )
  }
}
