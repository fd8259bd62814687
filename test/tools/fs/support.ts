// A real context for file-tool tests: session store, memory persistence, the tool registry,
// the file tools and real agents whose sessions record reads and changes.

import { afterEach } from 'vitest'
import type { AgentHandle } from '../../../src/agent/index.js'
import { type FsToolsConfig, FsToolsPlugin } from '../../../src/tools/fs/index.js'
import { type ShellTestContext, startShellTestContext } from '../../shell/support.js'
import { useTempDirs } from '../../support/temp-dir.js'

export interface FsRig {
  test: ShellTestContext
  home: string
  cwd: string
  agent: AgentHandle
  run(name: string, args: unknown, agent?: AgentHandle): Promise<{ content: string; isError?: boolean }>
}

/** Call at the top of a test file: `rig()` starts a context with one agent in a fresh cwd. */
export function useFsRigs(): (config?: FsToolsConfig) => Promise<FsRig> {
  const tempDir = useTempDirs('dsh-fs-')
  const open: ShellTestContext[] = []
  afterEach(async () => {
    while (open.length > 0) await open.pop()!.dispose()
  })
  return async (config = {}) => {
    const home = tempDir()
    const cwd = tempDir()
    const test = await startShellTestContext({
      home,
      backend: 'memory',
      plugins: [(ctx) => ctx.plugin(FsToolsPlugin, { home, ...config })],
    })
    open.push(test)
    const agent = await test.createAgent(`fs-${Math.random().toString(36).slice(2)}`, cwd)
    return { test, home, cwd, agent, run: (name, args, who) => test.runTool(name, args, who ?? agent) }
  }
}
