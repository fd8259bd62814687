// Under a sandbox the file tools see what bash sees: the paths the sandbox hides from
// commands (src/shell/sandbox/hidden-paths.ts: the harness home, the session store) are
// refused, also through symlinks, in every permission mode but bypassPermissions. So is
// the host's /proc: the tools run in dsh's own process, where /proc/self/environ (and the
// environment of every process of the user) holds the API key; a sandboxed command sees
// only its own PID namespace there.

import { join, relative } from 'node:path'
import type { Context } from 'cordis'
import { currentService } from '../../core/service-ref.js'
import type { ToolExecution } from '../../plugin-api/index.js'
import { callReadablePaths, hiddenPathTest } from '../../shell/index.js'
import { realOrSelf } from './paths.js'

export type HiddenAccess = 'read' | 'write'

/** The host's process table, hidden from the file tools under a sandbox. */
const HOST_PROC = '/proc'

export interface HiddenPathGuard {
  /** A one-line refusal when this call must not reach `absolute`; undefined when it may. */
  refusal(
    execution: ToolExecution,
    absolute: string,
    display: string,
    access: HiddenAccess,
  ): string | undefined
  /**
   * For a walk from folder `start` (symlinks not followed): a test that drops results in a
   * hidden path; undefined when nothing is hidden for this call.
   */
  walkFilter(execution: ToolExecution, start: string): ((path: string) => boolean) | undefined
}

/** No sandbox context (tests of single tools): nothing is hidden. */
export const NO_HIDDEN_PATHS: HiddenPathGuard = {
  refusal: () => undefined,
  walkFilter: () => undefined,
}

export function createHiddenPathGuard(ctx: Context, home: string | undefined): HiddenPathGuard {
  const shell = currentService(ctx, 'shell')
  const permissions = currentService(ctx, 'permissions')
  const spill = currentService(ctx, 'spill')
  const persistence = currentService(ctx, 'sessionPersistence')

  /** The hidden paths this call must not reach, or undefined when none apply. */
  const testFor = (execution: ToolExecution, access: HiddenAccess) => {
    const executor = shell()
    if (!executor?.sandboxed || executor.hiddenPaths.length === 0) return undefined
    const agent = execution.agent
    // Without a permission service the mode is unknown: not bypass (fail closed).
    if (agent && permissions()?.modeOf(agent) === 'bypassPermissions') return undefined
    const hidden = [...executor.hiddenPaths, HOST_PROC]
    if (access === 'write' || home === undefined || !agent) return hiddenPathTest(hidden)
    const location = persistence()?.locate(agent.session.header)
    return hiddenPathTest(
      hidden,
      callReadablePaths(home, {
        spillDir: spill()?.dirFor(agent.session.id),
        // Only a per-session file: a SQLite database holds every session.
        sessionLog: location?.kind === 'jsonl' ? location.path : undefined,
      }),
    )
  }

  return {
    refusal(execution, absolute, display, access) {
      if (!testFor(execution, access)?.hides(absolute)) return undefined
      const real = realOrSelf(absolute)
      if (real === HOST_PROC || real.startsWith(`${HOST_PROC}/`))
        return `refused: ${display} is the host's /proc (dsh's own environment holds its API key), which the sandbox hides from the model; a command sees its own /proc`
      return `refused: ${display} is in dsh's own storage (the harness home or the session store), which the sandbox hides from the model`
    },
    walkFilter(execution, start) {
      const test = testFor(execution, 'read')
      if (!test) return undefined
      // A walk that follows no symlinks reaches a file by the path as written below the
      // start, or by the same relative path below the start's real path.
      const real = realOrSelf(start)
      return (path) => !test.hidesAny([path, join(real, relative(start, path))])
    },
  }
}
