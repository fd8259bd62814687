// The history subcommands of `dsh sessions` (search, tail, migrate), kept out of main.ts; each loads
// its module only when it runs, so start-up stays fast.

import type { Command } from 'commander'

type Act = <A extends unknown[]>(run: (...args: A) => Promise<number>) => (...args: A) => Promise<void>

export function addHistoryCommands(sessions: Command, act: Act): void {
  sessions
    .command('search <query...>')
    .description(
      'find sessions by words of prompts, answers, tool calls and outputs, titles ("phrase", prefix*)',
    )
    .option('-a, --all', 'search every folder')
    .option('-C, --cwd <dir>', 'search the sessions of this folder instead')
    .option('--since <date>', 'only sessions active since (2026-12-01, or an age: 3d, 12h)')
    .option('--until <date>', 'only sessions active until')
    .option('--model <name>', 'only sessions that used this model')
    .option('--status <status>', 'only sessions whose last turn ended so (completed, interrupted, …)')
    .option('--reasoning', "also search the model's reasoning")
    .option('--limit <n>', 'at most n results (default 20)')
    .option('--json', 'print a JSON array')
    .option('--config <file>', 'config file')
    .action(
      act(async (query: string[], options) =>
        (await import('./sessions-search.js')).searchCommand(query, options),
      ),
    )

  sessions
    .command('tail')
    .description("print a session's latest events; --follow streams new ones live, from any host")
    .argument('<id>', 'session id')
    .option('-f, --follow', 'keep printing events as they are committed (Ctrl-C stops)')
    .option('-n, --lines <count>', 'how many of the latest events to print first, or "all"', '20')
    .option('--json', 'print events as JSON lines')
    .option('--config <file>', 'config file')
    .action(act(async (id: string, options) => (await import('./sessions-tail.js')).tailCommand(id, options)))

  sessions
    .command('migrate')
    .description('copy every session from one backend to another, keeping ids (safe to run again)')
    .requiredOption('--from <backend>', 'jsonl, sqlite or postgres (locations from the config)')
    .requiredOption('--to <backend>', 'jsonl, sqlite or postgres')
    .option('--dry-run', 'say what would be copied, copy nothing')
    .option('--config <file>', 'config file')
    .action(act(async (options) => (await import('./sessions-migrate.js')).migrateCommand(options)))
}
