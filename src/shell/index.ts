// Public surface of the shell seam: the managed `DSH_*` registry (`ctx.shellEnv`), the
// executor contract (`ctx.shell`) and its local provider.

import type { ShellEnvRegistry } from './env/registry.js'
import type { ShellExecutor } from './executor.js'

export type { ShellEnvRegistryConfig } from './env/registry.js'
export { BUILTIN_CONTRIBUTOR, ShellEnvRegistry } from './env/registry.js'
export {
  createSessionPersistenceContributor,
  SESSION_JSONL_KEY,
  SessionPersistenceEnvPlugin,
} from './env/session-persistence-contributor.js'
export { ShellErrorCode } from './errors.js'
export { ShellExecutor } from './executor.js'
export { defaultBashPath, findExecutable } from './find-shell.js'
export { buildChildEnv, TERMINAL_OVERRIDES } from './local/child-env.js'
export type { LocalShellExecutorConfig } from './local/local-executor.js'
export {
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_MAX_FINISHED_JOBS,
  LocalShellExecutor,
} from './local/local-executor.js'
export { orphanedCommandLines } from './local/orphans.js'
export { DEFAULT_MAX_OUTPUT_CHARS, OutputCapture } from './local/output-capture.js'
export { groupAlive, signalOwnGroup } from './local/process-group.js'
export { processStartTicks } from './local/running-calls.js'
export type { DshEnvKey } from './namespace.js'
export { BUILTIN_DSH_ENV_KEYS, DSH_ENV_KEY_PATTERN, DSH_ENV_PREFIX, isDshEnvName } from './namespace.js'
export { closingPtyMasters, heldPtyMasters, holdPtyMaster, withoutPtyMasters } from './pty-masters.js'
export type { ShellSpec } from './request.js'
export { DEFAULT_SHELL_TIMEOUT_MS, MAX_SHELL_TIMEOUT_MS, resolveShellRequest } from './request.js'
export type { SandboxCallPaths, SandboxMode, SandboxPolicy } from './sandbox/bwrap.js'
export {
  assertSandboxAvailable,
  bwrapArgs,
  DEFAULT_BWRAP_PATH,
  SANDBOX_MODES,
} from './sandbox/bwrap.js'
export type { SessionStoreFiles } from './sandbox/hidden-paths.js'
export { callReadablePaths, harnessHiddenPaths, hiddenPathTest } from './sandbox/hidden-paths.js'
export type { SecretFilter, SecretPolicy } from './secrets.js'
export {
  CREDENTIAL_NAME_PATTERN,
  CREDENTIAL_VENDOR_PREFIXES,
  createSecretFilter,
  DEFAULT_SECRET_FILTER,
  valueCarriesCredential,
} from './secrets.js'
export type {
  CapturedOutput,
  DshEnvSnapshot,
  ShellEnvContributor,
  ShellEnvDeclaration,
  ShellJobHandle,
  ShellJobStatus,
  ShellLaunch,
  ShellRequest,
  ShellResult,
  ShellStartRequest,
} from './types.js'

declare module 'cordis' {
  interface Context {
    shell: ShellExecutor
    shellEnv: ShellEnvRegistry
  }
}
