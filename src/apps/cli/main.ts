#!/usr/bin/env node
// The `dsh` command line: parses arguments with commander and loads each command's
// module only when it runs, so `dsh --version` and `dsh sessions list` start fast.

import type { Command } from 'commander'
import { packageVersion } from '../../core/version.js'
import { detachHungUpTerminalsAtExit } from '../shared/hung-up-terminal.js'
import { claimBrokenPipe } from '../shared/termination.js'
import { HELP_CODES, startsWithChatOption, unknownHelpTopic } from './argv.js'
import { addHistoryCommands } from './history-commands.js'
import { addMcpCommands } from './mcp-commands.js'
import type { RunOptions } from './run.js'

/** Runs the command line; resolves with the exit code. */
async function main(argv: string[]): Promise<number> {
  // Fast path: nothing else to load for the version.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${packageVersion()}\n`)
    return 0
  }
  const { CommanderError } = await import('commander')
  const { ExitCode, reportError } = await import('../shared/errors.js')
  let exitCode: number = ExitCode.Ok
  const program = await buildProgram((code) => {
    exitCode = code
  })
  if (argv.length === 0) {
    if (!(process.stdin.isTTY && process.stdout.isTTY)) {
      program.outputHelp()
      return ExitCode.Ok
    }
    argv = ['chat']
  } else if (startsWithChatOption(argv)) {
    // Bare `dsh` takes every chat option: `dsh -m X`, `dsh --continue`, `dsh -r ID`.
    argv = ['chat', ...argv]
  }
  // `help` is a listed command too; commander would print its help as an error.
  if (argv[0] === 'help' && argv[1] === 'help') argv = ['help', ...argv.slice(2)]
  const topic = unknownHelpTopic(program, argv)
  if (topic !== undefined) {
    process.stderr.write(`dsh: unknown command '${topic}' (dsh help lists the commands)\n`)
    return ExitCode.Usage
  }
  try {
    await program.parseAsync(argv, { from: 'user' })
    return exitCode
  } catch (error) {
    if (error instanceof CommanderError) {
      if (HELP_CODES.has(error.code)) return ExitCode.Ok
      return ExitCode.Usage
    }
    return reportError(error)
  }
}

async function buildProgram(setExitCode: (code: number) => void): Promise<Command> {
  const { Command, InvalidArgumentError } = await import('commander')
  /** A positive whole number for a counting flag, or a usage error naming the value. */
  const parseCount = (value: string): number => {
    const count = Number(value)
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(count) || count < 1) {
      throw new InvalidArgumentError(`expected a whole number of at least 1, got ${JSON.stringify(value)}`)
    }
    return count
  }
  /** A positive amount of money, like 0.5 or 2. */
  const parseAmount = (value: string): number => {
    const amount = Number(value)
    if (!/^\d+(\.\d+)?$|^\.\d+$/.test(value) || !(amount > 0)) {
      throw new InvalidArgumentError(`expected a positive amount like 0.50, got ${JSON.stringify(value)}`)
    }
    return amount
  }
  const { addAgentOptions, addPermissionOptions, addSandboxOptions, TRUST_PROJECT_FLAG, TRUST_PROJECT_HELP } =
    await import('./flags.js')

  /** Wraps an action: loads its module lazily and records its exit code. */
  const act =
    <A extends unknown[]>(run: (...args: A) => Promise<number>) =>
    async (...args: A) => {
      setExitCode(await run(...args))
    }

  const program = new Command('dsh')
    .description('A coding agent in your terminal, with durable sessions you can resume and fork.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      outputError: (message, write) =>
        write(
          `dsh: ${message
            .replace(/^error: /, '')
            .replace(/\s*\n\s*/g, ' ')
            .trim()}\n`,
        ),
    })
  program.addHelpText('after', PROGRAM_FOOTER)

  addAgentOptions(
    program
      .command('run')
      .description('run one headless turn: progress on stderr, the final answer on stdout')
      .argument('<prompt>', 'what to do; `-` reads the prompt from stdin'),
  )
    .option('--json', 'print one JSON object per line (events, then a result line) on stdout')
    .option(
      '--image <path>',
      'attach an image (PNG, JPEG, GIF, WebP) to the prompt; repeatable; `@shot.png` in the prompt also attaches',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--max-turns <n>', 'end the turn (reason max-steps) after this many model steps', parseCount)
    .option(
      '--max-cost <amount>',
      'end the turn (reason max-cost) once its estimated cost reaches this (USD, or pricing.currency)',
      parseAmount,
    )
    .option(
      '--mcp <servers>',
      'MCP servers for this run: `none`, or names separated by commas (default: all)',
    )
    .action(
      act(async (prompt: string, options: RunOptions) =>
        (await import('./run.js')).runCommand(prompt, options),
      ),
    )

  addAgentOptions(
    program
      .command('chat')
      .description('interactive chat (the default on a terminal); piped stdin runs one turn per line'),
  )
    .option(
      '--show-reasoning',
      'piped chat: print the reasoning on stdout between [thinking] and [/thinking] lines (default: on stderr)',
    )
    .action(act(async (options: RunOptions) => (await import('../chat/index.js')).chatCommand(options)))

  const sessions = program
    .command('sessions')
    .description('list, show, compact, locate and remove stored sessions')
    .helpCommand(false)
  sessions
    .command('list')
    .description('stored sessions of this folder, newest first')
    .option('-a, --all', 'sessions of every folder')
    .option('-C, --cwd <dir>', 'list the sessions of this folder instead')
    .option('--host <name>', 'only sessions last written from this host (shared backends; every folder)')
    .option('--status <status>', 'only live, interrupted or idle sessions (shared backends; every folder)')
    .option('--subagents', 'also list sub-agent sessions, indented under their parent')
    .option('--json', 'print a JSON array')
    .option('--config <file>', 'config file')
    .action(act(async (options) => (await import('./sessions.js')).listCommand(options)))
  addHistoryCommands(sessions, act)
  sessions
    .command('rm')
    .description(
      'remove stored sessions with their sub-agent sessions and spill files (never one being written)',
    )
    .argument('<id...>', 'session ids')
    .option('--config <file>', 'config file')
    .action(
      act(async (ids: string[], options) =>
        (await import('./sessions-remove.js')).removeCommand(ids, options),
      ),
    )
  sessions
    .command('prune')
    .description("remove this folder's sessions not active for a while, with their sub-agent sessions")
    .requiredOption('--older-than <age>', 'last activity longer ago than this: 12h, 30d, 2w')
    .option('--dry-run', 'list what would be removed, remove nothing')
    .option('-a, --all', 'sessions of every folder')
    .option('-C, --cwd <dir>', 'the sessions of this folder instead')
    .option('--config <file>', 'config file')
    .action(act(async (options) => (await import('./sessions-remove.js')).pruneCommand(options)))
  sessions
    .command('show')
    .description('print a readable transcript of a session')
    .argument('<id>', 'session id')
    .option('--json', 'print the header and events as JSON lines')
    .option('--config <file>', 'config file')
    .action(act(async (id: string, options) => (await import('./sessions.js')).showCommand(id, options)))
  sessions
    .command('export')
    .description('print a session as a Claude Code transcript, Markdown, or dsh JSON lines')
    .argument('<id>', 'session id')
    .option('--format <format>', 'claude-code, markdown or jsonl', 'claude-code')
    .option(
      '--to-claude-projects',
      "write the Claude Code transcript into ~/.claude/projects/<slug>/ (prints the file's path)",
    )
    .option('--config <file>', 'config file')
    .action(act(async (id: string, options) => (await import('./sessions.js')).exportCommand(id, options)))
  sessions
    .command('compact')
    .description("compact a stored session's context now: a model-written summary replaces its older history")
    .argument('<id>', 'session id')
    .option('--instructions <text>', 'what the summary should keep or focus on')
    .option('--config <file>', 'config file')
    .option('--no-project-config', 'load nothing the project folder brings (its hooks)')
    .action(
      act(async (id: string, options) => (await import('./sessions-compact.js')).compactCommand(id, options)),
    )
  sessions
    .command('path')
    .description("print where a session's log file is (or say it has none)")
    .argument('<id>', 'session id')
    .option('--config <file>', 'config file')
    .action(act(async (id: string, options) => (await import('./sessions.js')).pathCommand(id, options)))
  sessions
    .command('rename')
    .description('give a session a title (shown by list, search and the pickers)')
    .argument('<id>', 'session id, or a unique prefix of 6+ characters')
    .argument('<title>', 'the new title, one line')
    .option('--config <file>', 'config file')
    .action(
      act(async (id: string, title: string, options) =>
        (await import('./sessions.js')).renameCommand(id, title, options),
      ),
    )
  sessions
    .command('unlock')
    .description('remove the writer lock of a session whose writing process is gone')
    .argument('<id>', 'session id')
    .option('--force', 'also when the holder cannot be proved gone (another host, an old lock)')
    .option('--config <file>', 'config file')
    .action(act(async (id: string, options) => (await import('./sessions.js')).unlockCommand(id, options)))

  sessions
    .command('rewind')
    .description(
      'restore the files the file tools changed in a turn and later (bash side effects are not undone)',
    )
    .argument('<id>', 'session id')
    .requiredOption('--to-turn <n>', 'restore files to how they were before this turn')
    .option('--config <file>', 'config file')
    .action(act(async (id: string, options) => (await import('./rewind.js')).rewindCommand(id, options)))

  program
    .command('models')
    .description('list the models the configured endpoint offers; the default is marked')
    .option('--json', 'print a JSON array')
    .option('--config <file>', 'config file')
    .action(act(async (options) => (await import('./models.js')).modelsCommand(options)))

  program
    .command('doctor')
    .description(
      'check the setup: API key, model server, models, bwrap, rg, language servers, clipboard, PostgreSQL',
    )
    .option('-m, --model <name>', 'check this model instead of the configured one')
    .option('-C, --cwd <dir>', 'the project folder whose language servers are checked')
    .option('--config <file>', 'config file')
    .action(act(async (options) => (await import('./doctor.js')).doctorCommand(options)))

  const db = program
    .command('db')
    .description('the PostgreSQL session store: schema migrations')
    .helpCommand(false)
  db.command('migrate')
    .description('apply pending schema migrations (dsh also applies them when it starts)')
    .option('--config <file>', 'config file')
    .action(act(async (options) => (await import('./db.js')).dbMigrateCommand(options)))

  program
    .command('hooks')
    .description('hook handlers from Claude Code and Codex files')
    .helpCommand(false)
    .command('list')
    .description('every hook handler a session in this folder runs, with its file, event, matcher and if')
    .option('-C, --cwd <dir>', 'the folder whose project files count (default: the current folder)')
    .option('--json', 'print JSON')
    .option('--no-project-config', "leave out the project folder's own files")
    .option('--config <file>', 'config file')
    .action(act(async (options) => (await import('./hooks.js')).hooksListCommand(options)))

  program
    .command('env')
    .description('the managed DSH_* variables every bash command gets, with descriptions')
    .option('--json', 'print a JSON array')
    .option('--config <file>', 'config file')
    .action(act(async (options) => (await import('./env.js')).envCommand(options)))

  addSandboxOptions(addPermissionOptions(program.command('stdio')))
    .description(
      'serve JSON-RPC 2.0 on stdin/stdout (initialize, session/prompt, session/compact, session/cancel, shutdown)',
    )
    .option('--config <file>', 'config file')
    .option('--session-id <id>', 'the exact session id initialize uses when it names none (resume-or-create)')
    .option('--no-project-config', 'load nothing the project folder brings (its hooks)')
    .option(TRUST_PROJECT_FLAG, TRUST_PROJECT_HELP)
    .option('--max-turns <n>', 'end each turn (reason max-steps) after this many model steps', parseCount)
    .action(act(async (options) => (await import('./servers.js')).stdioCommand(options)))

  addSandboxOptions(addPermissionOptions(program.command('acp')))
    .description('serve the Agent Client Protocol on stdin/stdout, for editors')
    .option('--config <file>', 'config file')
    .option('--no-project-config', 'load nothing the project folder brings (its hooks)')
    .option(TRUST_PROJECT_FLAG, TRUST_PROJECT_HELP)
    .action(act(async (options) => (await import('./servers.js')).acpCommand(options)))

  addSandboxOptions(addPermissionOptions(program.command('web')))
    .description('serve a local web UI: browse sessions, read transcripts, chat live in the browser')
    .option('-p, --port <n>', 'port to listen on (0 picks a free one)', '4780')
    .option(
      '--host <address>',
      'address to bind (default 127.0.0.1; anything else is reachable from other machines)',
    )
    .option('--open', 'open the URL in the default browser')
    .option('--config <file>', 'config file')
    .option('--no-project-config', 'load nothing the project folder brings (its hooks)')
    .action(act(async (options) => (await import('../web/index.js')).webCommand(options)))

  program
    .command('lsp')
    .description('language servers for code intelligence')
    .helpCommand(false)
    .command('status')
    .description(
      'the language servers this folder would use; --check starts them and reports root, state, last error',
    )
    .option('-C, --cwd <dir>', 'for this folder instead')
    .option('--check', 'start each installed server for this folder, report, and stop it')
    .option('--json', 'print JSON')
    .option('--config <file>', 'config file')
    .action(act(async (options) => (await import('./lsp.js')).lspStatusCommand(options)))

  addMcpCommands(program, act)

  program
    .command('demo')
    .description('a complete turn with the built-in scripted model over loopback HTTP (no API key needed)')
    .action(act(async () => (await import('./demo.js')).demoCommand()))

  return program
}

const PROGRAM_FOOTER = `
With no command on a terminal, dsh starts an interactive chat; \`dsh [chat options]\`
(for example \`dsh -m NAME\`, \`dsh --continue\`, \`dsh -r ID\`) does the same with options.
\`dsh chat < prompts.txt\` runs one turn per line, in order.

Configuration:
  $DSH_HOME/config.yaml (default ~/.dsh/config.yaml), or --config <file>

Environment:
  DEEPSEEK_API_KEY   the API key (or the variable named by model.apiKeyEnv)
  DEEPSEEK_BASE_URL  the endpoint (default https://api.deepseek.com)
  DSH_HOME           the harness home: config, sessions, chat history (default ~/.dsh)
  NO_COLOR           no colours when set
  DSH_DEBUG          log details and stack traces of unexpected errors when set

Exit codes:
  0    success (run: the turn completed; piped chat: every turn completed)
  1    a command failed or a turn did not complete
  2    bad flags or arguments
  130  interrupted with Ctrl-C (143: SIGTERM, 129: SIGHUP)
  141  run/piped chat: the reader of stdout or stderr went away (the turn was ended and stored)
`

async function flushed(stream: NodeJS.WriteStream): Promise<void> {
  await new Promise<void>((resolve) => stream.write('', () => resolve()))
}

// A reader that went away (`dsh sessions list | head`) is not an error: stop quietly —
// unless a turn is running (`dsh run … | head -1`, or `2>&1 | head -1`, where the progress
// on stderr hits the closed pipe first): it then ends like Ctrl-C, its session recorded and
// its lock released, and the exit code says so (termination.ts).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
    if (claimBrokenPipe()) return
    process.exit(0)
  })
}

// A terminal closed under dsh must not turn its exit into Node 20's abort (hung-up-terminal.ts).
detachHungUpTerminalsAtExit()

// No top-level await: the bin runs this file bundled as CommonJS (scripts/bundle.mjs).
void main(process.argv.slice(2))
  .catch(async (error: unknown) => {
    const { reportError } = await import('../shared/errors.js')
    return reportError(error)
  })
  .then(async (code) => {
    await flushed(process.stdout)
    await flushed(process.stderr)
    // Explicit: an idle keep-alive socket or a finished child must not hold the process open.
    process.exit(code)
  })
