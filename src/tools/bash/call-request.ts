// What a model-run command gets from its tool call, shared by `bash` and the terminal
// tools: the working folder, the managed `DSH_*` snapshot, spill files kept with the
// session, and under a sandbox the project and the readable parts of the harness home.

import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { findProjectRoot } from '../../core/project-root.js'
import type { ToolExecution } from '../../plugin-api/index.js'
import type { SessionStore } from '../../session/index.js'
import type { ShellEnvRegistry, ShellExecutor } from '../../shell/index.js'
import { callReadablePaths } from '../../shell/index.js'
import type { DshEnvSnapshot } from '../../shell/types.js'
import type { SpillStore } from '../../spill/index.js'

export interface CallServices {
  shell: ShellExecutor
  shellEnv: ShellEnvRegistry
  spill: SpillStore | undefined
  sessions: SessionStore | undefined
}

export interface CallRequest {
  workdir: string
  dshEnv: DshEnvSnapshot
  /**
   * Under a sandbox: the project (writable) and what of the harness home stays readable.
   * Empty otherwise: nothing else reads them, and finding the project root costs a few
   * `stat`s per call.
   */
  sandboxPaths: { projectRoot?: string; readablePaths?: string[] }
  /** A fresh file in the session's spill folder (undefined without a session or store). */
  spillPath: ((label: string) => string) | undefined
}

/**
 * The request parts of one call. `workdir` is resolved against the session's cwd (`~`
 * expands). A contributor failure of the `DSH_*` registry throws and fails the call.
 */
export async function callRequest(
  services: CallServices,
  execution: ToolExecution,
  workdir: string | undefined,
): Promise<CallRequest> {
  const { shell, shellEnv, spill, sessions } = services
  const base = execution.agent?.cwd ?? process.cwd()
  const dshEnv = shellEnv.collect(execution)
  // Full output is kept with the session, so the path in the log stays valid after exit and on resume.
  const sessionId = execution.agent?.session.id
  const spillPath =
    spill && sessionId !== undefined ? (label: string) => spill.allocate(sessionId, label) : undefined
  // A sandbox binds only what exists when the call starts: make the spill folder and the
  // log exist first, so this call and its jobs see what is added to them later.
  if (shell.sandboxed && execution.agent) {
    if (spill && sessionId !== undefined) spill.ensureDir(sessionId)
    const log = dshEnv.DSH_SESSION_JSONL
    if (log !== undefined && !existsSync(log)) await sessions?.flush(execution.agent.session)
  }
  // Under a sandbox: the project is writable, and of the harness home only these are readable.
  // The file tools allow the same (src/tools/fs/hidden-guard.ts).
  const home = dshEnv.DSH_HOME
  const spillDir = spill && sessionId !== undefined ? spill.dirFor(sessionId) : undefined
  return {
    workdir: workdir === undefined ? base : resolveWorkdir(base, workdir),
    dshEnv,
    sandboxPaths: shell.sandboxed
      ? {
          projectRoot: findProjectRoot(base),
          readablePaths:
            home !== undefined
              ? callReadablePaths(home, { spillDir, sessionLog: dshEnv.DSH_SESSION_JSONL })
              : spillDir !== undefined
                ? [spillDir]
                : [],
        }
      : {},
    spillPath,
  }
}

function resolveWorkdir(base: string, workdir: string): string {
  if (workdir === '~') return homedir()
  if (workdir.startsWith('~/')) return join(homedir(), workdir.slice(2))
  return resolve(base, workdir)
}
