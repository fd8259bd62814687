// The commander declarations of the options the agent-starting commands take (`run`,
// `chat`, `stdio`, `acp`, `web`); src/apps/shared/options.ts reads the values they parse.

import type { Command } from 'commander'
import { PERMISSION_MODES } from '../../permissions/modes.js'
import { SANDBOX_MODES } from '../../shell/sandbox/bwrap.js'

/**
 * Splits rule lists as Claude Code's flags take them: separated by commas or spaces, except
 * inside parentheses (`Bash(git log *),Read` is two rules). Repeated flags add up.
 */
export function collectRules(value: string, previous: string[] = []): string[] {
  const rules: string[] = []
  let depth = 0
  let current = ''
  for (const char of value) {
    if (char === '(') depth += 1
    else if (char === ')') depth = Math.max(0, depth - 1)
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current !== '') rules.push(current)
      current = ''
    } else current += char
  }
  if (current !== '') rules.push(current)
  return [...previous, ...rules]
}

/** Declares `--permission-mode`, `--allowed-tools` and `--disallowed-tools`. */
export function addPermissionOptions(command: Command): Command {
  return command
    .option(
      '--permission-mode <mode>',
      `how much runs without asking: ${PERMISSION_MODES.join(', ')} (default: permissions.mode from the config, else auto)`,
    )
    .option(
      '--allowed-tools <rules>',
      'permission rules that allow without asking, e.g. "Bash(npm test *),Edit(src/**)" (repeatable)',
      collectRules,
    )
    .option(
      '--disallowed-tools <rules>',
      'permission rules that deny, e.g. "Bash(git push *),WebFetch" (repeatable)',
      collectRules,
    )
}

/** Declares `--sandbox <mode>`, `--sandbox-network` and `--no-sandbox-network`. */
export function addSandboxOptions(command: Command): Command {
  return command
    .option(
      '--sandbox <mode>',
      `run bash commands in bubblewrap: ${SANDBOX_MODES.join(', ')} (default: sandbox from the config, else off)`,
    )
    .option(
      '--sandbox-network',
      'under a sandbox, give commands the network (default: sandboxNetwork, else on)',
    )
    .option('--no-sandbox-network', 'under a sandbox, give commands no network at all')
}

/** Declares the agent options on a command. */
export function addAgentOptions(command: Command): Command {
  return addSandboxOptions(addPermissionOptions(command))
    .option('--config <file>', 'config file (default: $DSH_HOME/config.yaml)')
    .option('-m, --model <name>', 'model name (default: model.name from the config, else deepseek-flash)')
    .option('--effort <level>', 'thinking effort: off, low, high or max (default: model.effort, else high)')
    .option('-C, --cwd <dir>', 'working folder of a new session (default: the current folder)')
    .option('--session-id <id>', 'use this exact session id: resume it when stored, create it otherwise')
    .option('-r, --resume [id]', 'resume a stored session (in the chat, no id opens a picker)')
    .option('-c, --continue', 'resume the most recent session of this folder')
    .option('--fork <id>', "start a new session seeded with a stored session's completed turns")
    .option('--at-turn <n>', 'with --fork: seed only the turns up to turn n (counting from 1)')
    .option('--agent <label>', 'use the agents[] row with this id from the config')
    .option('--no-project-config', 'load nothing the project folder brings (its hooks), and ask nothing')
    .option(TRUST_PROJECT_FLAG, TRUST_PROJECT_HELP)
}

export const TRUST_PROJECT_FLAG = '--trust-project'
export const TRUST_PROJECT_HELP =
  "load the project folder's own MCP servers, hooks and allow rules for this run without asking"
