// `dsh run`: one headless turn. Progress goes to stderr, the final answer to stdout
// (or JSON lines with --json); Ctrl-C, SIGTERM and SIGHUP cancel the turn, clean up
// and exit 130, 143 and 129.

import './zod-jitless.js'
import { type PreparedImage, preparePromptImages, visionRefusal } from '../../attachments/index.js'
import { isDshError } from '../../core/errors.js'
import { findProjectRoot } from '../../core/project-root.js'
import { toTerminalId, toTerminalText } from '../../core/terminal-text.js'
import { DEFAULT_MODEL } from '../../llm/openai/config.js'
import { readProjectServers } from '../../mcp/config.js'
import { progressLine } from '../../mcp/status-lines.js'
import type { AgentOutput, TurnResult } from '../../plugin-api/index.js'
import { describeSettings } from '../../session/index.js'
import {
  costLimitPlugin,
  ESTIMATED_NOTE,
  formatUsageLine,
  ratesAt,
  resolvePriceTable,
  turnUsageEstimated,
  usageReport,
} from '../../usage/index.js'
import { ExitCode, usageError } from '../shared/errors.js'
import { type AgentOptions, trustFlags } from '../shared/options.js'
import { colorsFor, createProgressRenderer } from '../shared/render.js'
import { type AgentPlan, openHarness, planAgent, type StartedAgent, startAgent } from '../shared/start.js'
import { handleTermination } from '../shared/termination.js'
import { trackSubagents } from './subagent-usage.js'

export interface RunOptions extends AgentOptions {
  json?: boolean
  /** Model steps the turn may take before it ends `max-steps` (overrides agent.maxStepsPerTurn). */
  maxTurns?: number
  /** The most the run may spend (estimated, in the price table's currency) before it ends `max-cost`. */
  maxCost?: number
  /** `--image`, repeatable: images attached to the prompt. */
  image?: string[]
  /** `--mcp none|<name,name>`: the MCP servers this run loads. */
  mcp?: string
}

/** Runs one turn; resolves with the exit code (0 only when the turn completed). */
export async function runCommand(promptArgument: string, options: RunOptions): Promise<number> {
  const prompt = promptArgument === '-' ? await readStdin() : promptArgument
  if (prompt.trim() === '') throw usageError('the prompt is empty')
  const plan = await planAgent(options)
  if (options.maxTurns !== undefined)
    plan.config.agent = { ...plan.config.agent, maxStepsPerTurn: options.maxTurns }
  // Images are read and checked before any harness or session exists: a bad one is one line.
  const images = await promptImages(prompt, plan, options)
  const table = resolvePriceTable(plan.config.pricing)
  if (options.maxCost !== undefined) {
    const model = plan.model.model ?? plan.config.model.name ?? DEFAULT_MODEL
    if (!ratesAt(table, model, Date.now())) {
      throw usageError(
        `--max-cost needs a price for the model ${model}: add it to pricing.models in the config`,
      )
    }
  }

  const only = chosenServers(options.mcp, plan)

  const interrupt = new AbortController()
  const termination = handleTermination(() => interrupt.abort(), { brokenPipe: true })
  let harness: Awaited<ReturnType<typeof openHarness>>
  try {
    // Headless: nobody to ask, so only a folder trusted with its current configuration (or
    // `--trust-project`) brings its own; anything else is left out and said in one line.
    // MCP servers start in the background: the first request does not wait for them.
    harness = await openHarness(plan, {
      canAsk: false,
      trust: trustFlags(options, 'headless'),
      mcp: { background: true, ...(only ? { only } : {}) },
    })
  } catch (error) {
    termination.dispose()
    throw error
  }
  try {
    const started = await startAgent(harness, plan, options)
    const { agent } = started
    const location = harness.ctx.get('sessionPersistence')?.locate(agent.session.header)
    const emit = options.json ? jsonLine : () => {}
    emit({
      type: 'session',
      sessionId: agent.id,
      how: started.how,
      cwd: agent.cwd,
      transcriptPath: location?.path ?? null,
      ...(started.parent !== undefined ? { parentSession: started.parent } : {}),
      ...(started.restored !== undefined ? { restored: started.restored } : {}),
    })
    if (!options.json) noticeStart(started, plan.cwdGiven && plan.cwd !== agent.cwd ? plan.cwd : undefined)
    if (interrupt.signal.aborted) return termination.exitCode ?? ExitCode.Interrupted

    const render = options.json ? (output: AgentOutput) => jsonLine(output) : progressRenderer()
    const unsubscribe = agent.onOutput(render)
    // MCP servers' progress notifications, one line each (a JSON line with --json).
    const progress = harness.ctx.plugin({
      name: 'run-mcp-progress',
      apply: (ctx) => {
        ctx.on('mcp/progress', (event) => {
          if (event.execution.agent?.id !== agent.id) return
          if (options.json) {
            const { execution, ...rest } = event
            jsonLine({ type: 'mcp-progress', callId: execution.callId, ...rest })
          } else process.stderr.write(`${progressLine(event)}\n`)
        })
      },
    })
    const subagents = trackSubagents(harness.ctx, agent)
    const budget =
      options.maxCost !== undefined
        ? harness.ctx.plugin(costLimitPlugin({ maxCost: options.maxCost, table }))
        : undefined
    let result: TurnResult
    try {
      result = await agent.prompt(prompt, { signal: interrupt.signal, ...(images.length ? { images } : {}) })
    } finally {
      unsubscribe()
      await progress.dispose()
      await budget?.dispose()
      subagents.dispose()
    }
    const report = usageReport(agent.session.events, result.turn, table)
    const subagentUsage = subagents.totals(table)
    if (options.json) {
      // How full the next request would be: the server's last count plus what came since.
      const context = agent.contextUsage()
      emit({
        type: 'result',
        sessionId: agent.id,
        ...result,
        ...report,
        usageEstimated: turnUsageEstimated(agent.session.events, result.turn),
        ...(subagentUsage ? { subagents: subagents.count, subagentUsage } : {}),
        contextTokens: context?.tokens ?? null,
        contextWindow: context?.window ?? null,
      })
    }
    if (!options.json && report.usage.inputTokens + report.usage.outputTokens > 0) {
      const colors = colorsFor(process.stderr)
      const estimated = turnUsageEstimated(agent.session.events, result.turn) ? ` ${ESTIMATED_NOTE}` : ''
      process.stderr.write(
        `${colors.dim(formatUsageLine(report.usage, report.currency, 'usage') + estimated)}\n`,
      )
      if (subagentUsage && subagentUsage.inputTokens + subagentUsage.outputTokens > 0) {
        const label = `sub-agents (${subagents.count})`
        process.stderr.write(`${colors.dim(formatUsageLine(subagentUsage, report.currency, label))}\n`)
      }
    }
    if (!options.json && result.reason === 'completed') {
      // A terminal gets the answer sanitized; a file or pipe gets the model's bytes as they are.
      const text = process.stdout.isTTY ? toTerminalText(result.text) : result.text
      process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`)
    }
    if (result.reason === 'completed' && termination.signal === undefined) return ExitCode.Ok
    return termination.exitCode ?? ExitCode.Failure
  } finally {
    await harness.dispose()
    termination.dispose()
  }
}

function progressRenderer(): (output: AgentOutput) => void {
  return createProgressRenderer(process.stderr, colorsFor(process.stderr))
}

function noticeStart(started: StartedAgent, ignoredCwd: string | undefined): void {
  const colors = colorsFor(process.stderr)
  const how =
    started.how === 'forked'
      ? `forked from ${toTerminalId(started.parent ?? '')}`
      : started.how === 'resumed'
        ? 'resumed'
        : 'new'
  process.stderr.write(colors.dim(`session ${toTerminalId(started.agent.id)} (${how})\n`))
  const restored = started.restored ? describeSettings(started.restored) : ''
  if (restored !== '') process.stderr.write(colors.dim(`restored: ${toTerminalText(restored)}\n`))
  if (ignoredCwd !== undefined) {
    process.stderr.write(colors.dim(`note: the session keeps its own folder ${started.agent.cwd}\n`))
  }
}

function jsonLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`)
}

/** The prompt's images (`--image`, `@` mentions), refused with one line (exit 2) before anything starts. */
async function promptImages(prompt: string, plan: AgentPlan, options: RunOptions): Promise<PreparedImage[]> {
  try {
    const images = await preparePromptImages(prompt, {
      cwd: plan.cwd,
      paths: options.image ?? [],
      mentionsOutside: (plan.permissions.mode ?? plan.config.permissions.mode) === 'bypassPermissions',
    })
    const refusal = visionRefusal(plan.model.model ?? plan.config.model.name ?? DEFAULT_MODEL, images.length)
    if (refusal) throw refusal
    return images
  } catch (error) {
    if (isDshError(error) && error.code.startsWith('ATTACHMENT_')) throw usageError(error.message)
    throw error
  }
}

/** `--mcp`: undefined (every server), [] (`none`) or the names given, each a configured server. */
function chosenServers(flag: string | undefined, plan: AgentPlan): string[] | undefined {
  if (flag === undefined) return undefined
  if (flag.trim() === 'none') return []
  const names = flag
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '')
  if (names.length === 0) throw usageError('--mcp needs `none` or server names separated by commas')
  // Servers of the config file and of the project's .mcp.json (trusted or not: the choice is by name).
  const known = new Set([
    ...Object.keys(plan.config.mcpServers),
    ...Object.keys(readProjectServers(findProjectRoot(plan.cwd))?.servers ?? {}),
  ])
  const unknown = names.filter((name) => !known.has(name))
  if (unknown.length > 0) {
    const list = [...known].join(', ') || 'none are configured'
    throw usageError(`--mcp: no MCP server named ${unknown.join(', ')} (servers: ${list})`)
  }
  return names
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
