// Model-facing text of the bash tool and its background-job companions.

import { DSH_ENV_PREFIX } from '../../shell/namespace.js'
import { DEFAULT_SHELL_TIMEOUT_MS, MAX_SHELL_TIMEOUT_MS } from '../../shell/request.js'

export const BASH_TOOL_DESCRIPTION = `Runs a command with \`bash -c\` and returns its output.

- The command runs in the session's working directory unless \`workdir\` is given (relative paths resolve against the session's working directory). Each call is a fresh shell: \`cd\` and exported variables do not carry over to the next call.
- stdin is empty (/dev/null): do not run commands that wait for input or open an editor or pager.
- Output keeps the last part of stdout, then stderr after a \`[stderr]\` line. When a stream is too long, a \`[output truncated; full output: PATH]\` line names a file with the whole stream; read or grep that file instead of re-running the command.
- A non-zero exit is reported as \`[exit code: N]\`; it is a normal result, not a failure of the tool.
- \`timeout_ms\` defaults to ${DEFAULT_SHELL_TIMEOUT_MS} (${DEFAULT_SHELL_TIMEOUT_MS / 1000} s) and is capped at ${MAX_SHELL_TIMEOUT_MS} (${MAX_SHELL_TIMEOUT_MS / 60_000} min). On timeout the command and everything it started are killed.
- For servers, watchers and other long-running commands set \`run_in_background: true\`: the call returns a job id at once; read the output with \`job_output\` and stop it with \`job_kill\`. Do not use a trailing \`&\`: processes left behind by a foreground command are stopped when it ends.
- Facts about the current harness environment are available to every command as \`$${DSH_ENV_PREFIX}*\` environment variables; inspect them with \`env | grep ^${DSH_ENV_PREFIX}\` when you need them.
- Put a short \`description\` of what the command does (5-10 words).`

export const JOB_OUTPUT_TOOL_DESCRIPTION = `Shows the status and the output so far of a background job started by \`bash\` with \`run_in_background: true\`. Output is the tail of each stream, like \`bash\` results.`

export const JOB_KILL_TOOL_DESCRIPTION = `Stops a background job started by \`bash\` with \`run_in_background: true\`, with everything it started, and shows its final output.`
