// Error codes of the shell seam: the `DSH_*` registry, requests and executors.

export const ShellErrorCode = {
  /** A contributor's name is blank. */
  EnvBlankName: 'SHELL_ENV_BLANK_NAME',
  /** A contributor with this name is already registered. */
  EnvDuplicateName: 'SHELL_ENV_DUPLICATE_NAME',
  /** A declared key is outside `DSH_[A-Z][A-Z0-9_]*`. */
  EnvInvalidKey: 'SHELL_ENV_INVALID_KEY',
  /** A declared key is one of the registry's built-ins. */
  EnvReservedKey: 'SHELL_ENV_RESERVED_KEY',
  /** A declared key has a blank description. */
  EnvBlankDescription: 'SHELL_ENV_BLANK_DESCRIPTION',
  /** A declared key is already owned by another contributor. */
  EnvKeyConflict: 'SHELL_ENV_KEY_CONFLICT',
  /** A declaration is not shaped like a contributor (no keys, no resolve function). */
  EnvInvalidDeclaration: 'SHELL_ENV_INVALID_DECLARATION',
  /** A resolver returned a key it did not declare. */
  EnvUndeclaredKey: 'SHELL_ENV_UNDECLARED_KEY',
  /** A resolver returned a value that is not a string (or holds a NUL byte). */
  EnvInvalidValue: 'SHELL_ENV_INVALID_VALUE',
  /** A resolver threw. */
  EnvResolveFailed: 'SHELL_ENV_RESOLVE_FAILED',
  /** The registry was configured without a harness home. */
  EnvNoHome: 'SHELL_ENV_NO_HOME',

  /** A key in the wrong channel: `DSH_*` in `env`, or an ordinary key in `dshEnv`. */
  WrongChannel: 'SHELL_WRONG_CHANNEL',
  /** A sandbox was asked for but bubblewrap is missing or cannot run. */
  SandboxUnavailable: 'SHELL_SANDBOX_UNAVAILABLE',
  /** A malformed request: empty command, bad timeout, bad variable name or value. */
  BadRequest: 'SHELL_BAD_REQUEST',
  /** The working directory does not exist or is not a directory. */
  WorkdirNotFound: 'SHELL_WORKDIR_NOT_FOUND',
  /** The shell process could not be started. */
  SpawnFailed: 'SHELL_SPAWN_FAILED',
  /** The executor was unloaded; it runs nothing more. */
  ExecutorClosed: 'SHELL_EXECUTOR_CLOSED',
  /** No background job with this id. */
  JobNotFound: 'SHELL_JOB_NOT_FOUND',
} as const

export type ShellErrorCode = (typeof ShellErrorCode)[keyof typeof ShellErrorCode]
