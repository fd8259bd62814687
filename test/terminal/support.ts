// Shared composition for terminal tests: the shell test context (session store, tool
// registry, `DSH_*` registry, local executor, bash tool) plus the terminal service and tools.

import type { Context, Fiber } from 'cordis'
import type { AgentHandle } from '../../src/agent/index.js'
import type { LocalShellExecutorConfig } from '../../src/shell/index.js'
import { SpillStore } from '../../src/spill/index.js'
import { TerminalService, type TerminalServiceConfig } from '../../src/terminal/index.js'
import type { ToolOutput } from '../../src/tools/index.js'
import { TerminalToolsPlugin } from '../../src/tools/terminal/index.js'
import { type ShellTestContext, startShellTestContext } from '../shell/support.js'

export interface TerminalTestContext extends ShellTestContext {
  /** Runs a terminal tool as `agent` and returns its text (throws on an error result unless `allowError`). */
  call(agent: AgentHandle | undefined, name: string, args: unknown, allowError?: boolean): Promise<string>
  output(agent: AgentHandle | undefined, name: string, args: unknown): Promise<ToolOutput>
}

export async function startTerminalTestContext(options: {
  home: string
  executor?: LocalShellExecutorConfig
  terminals?: TerminalServiceConfig
  settleMs?: number
  plugins?: ((ctx: Context) => Fiber)[]
}): Promise<TerminalTestContext> {
  const test = await startShellTestContext({
    home: options.home,
    backend: 'jsonl',
    ...(options.executor ? { executor: options.executor } : {}),
    plugins: [
      (ctx) => ctx.plugin(SpillStore, { home: options.home }),
      (ctx) => ctx.plugin(TerminalService, { killGraceMs: 500, ...options.terminals }),
      (ctx) => ctx.plugin(TerminalToolsPlugin, { settleMs: options.settleMs ?? 150 }),
      ...(options.plugins ?? []),
    ],
  })
  const output = (agent: AgentHandle | undefined, name: string, args: unknown) =>
    test.runTool(name, args, agent)
  return {
    ...test,
    output,
    async call(agent, name, args, allowError = false) {
      const result = await output(agent, name, args)
      if (result.isError && !allowError) throw new Error(`${name} failed: ${result.content}`)
      return result.content
    },
  }
}

/** The `[screen]` part of a reading. */
export function screenOf(reading: string): string {
  const at = reading.indexOf('\n[screen]\n')
  return at < 0 ? '' : reading.slice(at + '\n[screen]\n'.length)
}
