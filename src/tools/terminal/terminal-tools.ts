// The model-facing terminal tools: terminal_start, terminal_send, terminal_read,
// terminal_resize, terminal_kill and terminal_list. Each call carries the managed `DSH_*`
// snapshot and sandbox paths of its own ToolExecution, exactly as `bash` does.

import type { Context } from 'cordis'
import { DshError, isDshError } from '../../core/errors.js'
import { currentService } from '../../core/service-ref.js'
import type { ToolExecution, ToolOutput } from '../../plugin-api/index.js'
import { MAX_SHELL_TIMEOUT_MS } from '../../shell/index.js'
import { keyBytes, type TerminalOwner, typedText } from '../../terminal/index.js'
import { callRequest } from '../bash/call-request.js'
import { sendView, startView } from './permission.js'
import {
  TERMINAL_KILL_DESCRIPTION,
  TERMINAL_LIST_DESCRIPTION,
  TERMINAL_READ_DESCRIPTION,
  TERMINAL_RESIZE_DESCRIPTION,
  TERMINAL_SEND_DESCRIPTION,
  TERMINAL_START_DESCRIPTION,
} from './prompt.js'
import { renderList, renderReading, statusText } from './render.js'
import {
  idParameters,
  listParameters,
  readParameters,
  resizeParameters,
  type SendArguments,
  type StartArguments,
  sendParameters,
  startParameters,
} from './schema.js'

export const DEFAULT_READY_TIMEOUT_MS = 30_000
export const DEFAULT_WAIT_TIMEOUT_MS = 10_000
export const DEFAULT_SETTLE_TIMEOUT_MS = 3_000
/** Quiet output this long counts as settled. */
export const SETTLE_MS = 300

export interface TerminalToolsConfig {
  /** Quiet time that counts as settled (tests and benchmarks lower it). Default SETTLE_MS. */
  settleMs?: number
}

const owner = (execution: ToolExecution): TerminalOwner => ({ agentId: execution.agent?.id })
const bound = (timeoutMs: number | undefined, fallback: number) =>
  Math.min(timeoutMs ?? fallback, MAX_SHELL_TIMEOUT_MS)

/** Registers the six terminal tools (needs `ctx.terminals`). */
export const TerminalToolsPlugin = {
  name: 'terminal-tools',
  inject: ['tools', 'terminals', 'shell', 'shellEnv'],
  apply(ctx: Context, config: TerminalToolsConfig = {}): void {
    const settleMs = config.settleMs ?? SETTLE_MS
    // Reached past Cordis's per-call proxy: a keystroke's round trip makes several lookups.
    const currentTerminals = currentService(ctx, 'terminals')
    const terminals = () => currentTerminals()!
    const find = (execution: ToolExecution, id: string) => terminals().get(owner(execution), id)
    const services = currentServices(ctx)

    ctx.tools.register({
      name: 'terminal_start',
      description: TERMINAL_START_DESCRIPTION,
      get parameters() {
        return startParameters.schema()
      },
      parametersJsonSchema: startParameters.jsonSchema,
      permissionSubject: (input) => startView(input),
      execute: (args, execution) => guarded(() => start(args, execution)),
    })
    const start = async (args: StartArguments, execution: ToolExecution): Promise<ToolOutput> => {
      const { shell, shellEnv, spill, sessions } = services()
      if (!shell || !shellEnv)
        return { content: 'terminals are not available: no shell executor is loaded', isError: true }
      const call = await callRequest({ shell, shellEnv, spill, sessions }, execution, args.cwd)
      const terminal = await terminals().start(owner(execution), {
        command: args.command,
        shell: {
          workdir: call.workdir,
          dshEnv: call.dshEnv,
          ...call.sandboxPaths,
        },
        ...(args.cols !== undefined ? { cols: args.cols } : {}),
        ...(args.rows !== undefined ? { rows: args.rows } : {}),
        ...(call.spillPath ? { spillPath: () => call.spillPath!(`terminal`) } : {}),
      })
      const reading = await terminal
        .read({
          ...(args.ready !== undefined ? { waitFor: args.ready } : {}),
          timeoutMs: bound(
            args.timeout_ms,
            args.ready !== undefined ? DEFAULT_READY_TIMEOUT_MS : DEFAULT_SETTLE_TIMEOUT_MS,
          ),
          settleMs,
          signal: execution.signal,
        })
        .catch((error: unknown) => {
          // The terminal runs: the model must learn its id with the error (a `ready` pattern too slow).
          if (isDshError(error))
            throw new DshError(`started terminal ${terminal.id}, but ${error.message}`, error.code, {
              cause: error,
            })
          throw error
        })
      const ready = args.ready === undefined ? '' : reading.outcome === 'matched' ? ' (ready)' : ''
      return {
        content: `started terminal ${terminal.id}${ready}\n${renderReading(reading, args.ready)}`,
        details: {
          id: terminal.id,
          pid: terminal.pid,
          outcome: reading.outcome,
          screen: reading.screen.lines,
        },
      }
    }

    ctx.tools.register({
      name: 'terminal_send',
      description: TERMINAL_SEND_DESCRIPTION,
      get parameters() {
        return sendParameters.schema()
      },
      parametersJsonSchema: sendParameters.jsonSchema,
      permissionSubject: (input, agent) =>
        sendView(
          typeof input.id === 'string' ? terminals().get({ agentId: agent.id }, input.id) : undefined,
          input,
        ),
      execute: (args, execution) => guarded(async () => send(args, execution)),
    })
    const send = (args: SendArguments, execution: ToolExecution): ToolOutput => {
      const terminal = find(execution, args.id)
      if (!terminal) return noSuchTerminal(args.id)
      if (!terminal.running)
        return {
          content: `terminal ${args.id} has ${statusText(terminal.info())}; it reads no more input`,
          isError: true,
        }
      const data = typedText(args.text ?? '') + (args.keys ?? []).map(keyBytes).join('')
      if (data === '') return { content: 'nothing to send: give text, keys or both', isError: true }
      terminal.write(data)
      const keys = args.keys?.length ? ` and ${args.keys.join(', ')}` : ''
      return {
        content: `sent ${JSON.stringify(args.text ?? '')}${keys} to ${args.id}; read the screen with terminal_read`,
      }
    }

    ctx.tools.register({
      name: 'terminal_read',
      description: TERMINAL_READ_DESCRIPTION,
      get parameters() {
        return readParameters.schema()
      },
      parametersJsonSchema: readParameters.jsonSchema,
      execute: (args, execution) =>
        guarded(async () => {
          const terminal = find(execution, args.id)
          if (!terminal) return noSuchTerminal(args.id)
          const reading = await terminal.read({
            ...(args.wait_for !== undefined ? { waitFor: args.wait_for } : {}),
            timeoutMs: bound(
              args.timeout_ms,
              args.wait_for !== undefined ? DEFAULT_WAIT_TIMEOUT_MS : DEFAULT_SETTLE_TIMEOUT_MS,
            ),
            settleMs,
            signal: execution.signal,
          })
          return {
            content: renderReading(reading, args.wait_for),
            details: {
              id: terminal.id,
              outcome: reading.outcome,
              screen: reading.screen.lines,
              cursor: reading.screen.cursor,
              status: reading.info.status,
              exitCode: reading.info.exitCode,
            },
          }
        }),
    })

    ctx.tools.register({
      name: 'terminal_resize',
      description: TERMINAL_RESIZE_DESCRIPTION,
      get parameters() {
        return resizeParameters.schema()
      },
      parametersJsonSchema: resizeParameters.jsonSchema,
      execute: (args, execution) =>
        guarded(async () => {
          const terminal = find(execution, args.id)
          if (!terminal) return noSuchTerminal(args.id)
          terminal.resize(args.cols, args.rows)
          return { content: `terminal ${args.id} is now ${args.cols}x${args.rows}` }
        }),
    })

    ctx.tools.register({
      name: 'terminal_kill',
      description: TERMINAL_KILL_DESCRIPTION,
      get parameters() {
        return idParameters.schema()
      },
      parametersJsonSchema: idParameters.jsonSchema,
      execute: (args, execution) =>
        guarded(async () => {
          const wasRunning = find(execution, args.id)?.running
          const info = await terminals().kill(owner(execution), args.id)
          if (!info) return noSuchTerminal(args.id)
          const verdict = wasRunning ? `killed terminal ${args.id}` : `terminal ${args.id} had already ended`
          return { content: `${verdict} (${statusText(info)})` }
        }),
    })

    ctx.tools.register({
      name: 'terminal_list',
      description: TERMINAL_LIST_DESCRIPTION,
      get parameters() {
        return listParameters.schema()
      },
      parametersJsonSchema: listParameters.jsonSchema,
      execute: async (_args, execution) => ({ content: renderList(terminals().list(owner(execution))) }),
    })
  },
}

function currentServices(ctx: Context) {
  const shell = currentService(ctx, 'shell')
  const shellEnv = currentService(ctx, 'shellEnv')
  const spill = currentService(ctx, 'spill')
  const sessions = currentService(ctx, 'sessions')
  return () => ({ shell: shell(), shellEnv: shellEnv(), spill: spill(), sessions: sessions() })
}

/** Expected failures (cap, bad size, unknown key, sandbox unavailable) become one-line tool errors. */
async function guarded(body: () => Promise<ToolOutput>): Promise<ToolOutput> {
  try {
    return await body()
  } catch (error) {
    if (isDshError(error)) return { content: error.message, isError: true }
    throw error
  }
}

function noSuchTerminal(id: string): ToolOutput {
  return { content: `no terminal ${id} in this session (terminal_list shows them)`, isError: true }
}
