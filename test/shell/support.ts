// Shared composition for shell and bash-tool tests: a real Cordis context with the session
// store, a chosen persistence backend, the tool registry, the shell seam and the bash tool.

import { join } from 'node:path'
import { Context, type Fiber } from 'cordis'
import type { AgentHandle } from '../../src/agent/index.js'
import { AgentRegistry } from '../../src/agent/index.js'
import {
  JsonlSessionBackend,
  MemorySessionBackend,
  SqliteSessionBackend,
} from '../../src/persistence/index.js'
import { Session, SessionStore } from '../../src/session/index.js'
import {
  LocalShellExecutor,
  type LocalShellExecutorConfig,
  SessionPersistenceEnvPlugin,
  ShellEnvRegistry,
} from '../../src/shell/index.js'
import { BashToolPlugin } from '../../src/tools/bash/index.js'
import type { ToolExecution, ToolOutput } from '../../src/tools/index.js'
import { ToolRegistry } from '../../src/tools/index.js'
import { isLive } from '../support/processes.js'

export type BackendKind = 'jsonl' | 'sqlite' | 'memory' | 'none'

export interface ShellTestContext {
  ctx: Context
  home: string
  /** The fiber of the bash-tool plugin (tests unload it). */
  bashTool: Fiber
  /** Replaces the persistence service at run time (`none` unloads it). */
  swapBackend(kind: BackendKind): Promise<void>
  createAgent(sessionId: string, cwd?: string): Promise<AgentHandle>
  /** Runs a tool by name with raw arguments, as the agent loop does. */
  runTool(name: string, args: unknown, agent?: AgentHandle, signal?: AbortSignal): Promise<ToolOutput>
  dispose(): Promise<void>
}

export async function startShellTestContext(options: {
  home: string
  backend: BackendKind
  executor?: LocalShellExecutorConfig
  /** Extra plugins loaded last (an llm adapter for full-loop tests). */
  plugins?: ((ctx: Context) => Fiber)[]
}): Promise<ShellTestContext> {
  const ctx = new Context()
  const bashTool = ctx.plugin(BashToolPlugin)
  const fibers: Fiber[] = [
    ctx.plugin(SessionStore),
    ctx.plugin(ToolRegistry),
    ctx.plugin(ShellEnvRegistry, { home: options.home }),
    ctx.plugin(LocalShellExecutor, options.executor ?? {}),
    ctx.plugin(SessionPersistenceEnvPlugin),
    bashTool,
    ...(options.plugins ?? []).map((load) => load(ctx)),
  ]
  let backend: Fiber | undefined
  const swapBackend = async (kind: BackendKind) => {
    await backend?.dispose()
    backend = loadBackend(ctx, kind, options.home)
    await backend?.await()
  }
  await swapBackend(options.backend)
  const agents = ctx.plugin(AgentRegistry)
  await Promise.all([...fibers, agents].map((fiber) => fiber.await()))
  let calls = 0
  return {
    ctx,
    home: options.home,
    bashTool,
    swapBackend,
    createAgent: (sessionId, cwd) =>
      ctx.get('agents')!.create({ sessionId, meta: cwd === undefined ? {} : { cwd } }),
    runTool(name, args, agent, signal) {
      const execution: ToolExecution = {
        callId: `call-${++calls}`,
        signal: signal ?? new AbortController().signal,
        ...(agent ? { agent } : {}),
      }
      return ctx.get('tools')!.run(name, typeof args === 'string' ? args : JSON.stringify(args), execution)
    },
    async dispose() {
      await agents.dispose()
      for (const fiber of [...fibers].reverse()) await fiber.dispose()
      await backend?.dispose()
    },
  }
}

function loadBackend(ctx: Context, kind: BackendKind, home: string): Fiber | undefined {
  switch (kind) {
    case 'jsonl':
      return ctx.plugin(JsonlSessionBackend, { root: join(home, 'sessions') })
    case 'sqlite':
      return ctx.plugin(SqliteSessionBackend, { file: join(home, 'sessions.db') })
    case 'memory':
      return ctx.plugin(MemorySessionBackend)
    case 'none':
      return undefined
  }
}

/** Parses `KEY=value` lines (the output of `env`, or of `printf '%s=%s\n'`). */
export function parseEnvLines(text: string): Record<string, string> {
  const parsed: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=')
    if (eq > 0) parsed[line.slice(0, eq)] = line.slice(eq + 1)
  }
  return parsed
}

/** True once a pid is gone or only a zombie (a reaped-later corpse runs nothing). */
export async function waitUntilGone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!isLive(pid)) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return !isLive(pid)
}

/** A bare agent handle over a real Session, for registry tests that need no agent loop. */
export function stubAgent(id: string, cwd?: string): AgentHandle {
  const session = new Session({
    version: 1,
    id,
    createdAt: Date.now(),
    delegationDepth: 0,
    ...(cwd ? { cwd } : {}),
  })
  return { id, session, cwd: cwd ?? process.cwd() } as unknown as AgentHandle
}

/** A ToolExecution for direct calls. */
export function execution(agent?: AgentHandle): ToolExecution {
  return { callId: 'call-direct', signal: new AbortController().signal, ...(agent ? { agent } : {}) }
}
