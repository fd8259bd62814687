// What main.ts decides from the raw arguments before Commander parses them.

import type { Command } from 'commander'

/** Commander's ways of saying "help or version was shown": a successful exit. */
export const HELP_CODES = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version'])

/** Options that the program itself answers; anything else leading with `-` is a chat option. */
const PROGRAM_FLAGS = new Set(['-h', '--help', '-V', '--version'])

/** `dsh -m X`, `dsh --continue`: bare `dsh` with chat options. */
export function startsWithChatOption(argv: readonly string[]): boolean {
  const first = argv[0]!
  return first.startsWith('-') && first !== '-' && !PROGRAM_FLAGS.has(first)
}

/**
 * The topic of `dsh help <topic>` when no command has that name. Commander would show the
 * general help and exit 0; an unknown name is a usage error like `dsh <unknown>`.
 */
export function unknownHelpTopic(program: Command, argv: readonly string[]): string | undefined {
  const topic = argv[0] === 'help' ? argv[1] : undefined
  if (topic === undefined || topic.startsWith('-')) return undefined
  return program.commands.some((command) => command.name() === topic) ? undefined : topic
}
