// How Bash rules see a command line: split into simple commands at shell operators
// (`&&`, `||`, `;`, `|`, `&`, newlines), wrappers such as `timeout 5` stripped, so that
// `Bash(git status *)` never allows `git status && rm -rf ~`.

import { parse } from 'shell-quote'

// Wrappers a rule looks through, with how many leading arguments they take. An option
// that takes a value as the next word (`-u NAME`, `--signal KILL`) takes that word too:
// otherwise `env -u HOME rm x` would read as the command `HOME rm x`. A short-option
// cluster takes the next word only when it ends in such an option and holds nothing but
// option letters (`-vs KILL`; `-k1s` carries its value).
const WRAPPERS: Readonly<Record<string, (args: string[]) => number>> = {
  // Stryker disable next-line ArrowFunction: slice(undefined) is slice(0), the same words
  nohup: () => 0,
  // Stryker disable next-line ArrowFunction: slice(undefined) is slice(0), the same words
  time: () => 0,
  nice: (args) => optionWords(args, /^(-n|--adjustment)$/),
  timeout: (args) => optionWords(args, /^(-[pv]*[sk]|--signal|--kill-after)$/) + 1, // + the duration
  stdbuf: (args) => optionWords(args, /^(-[ioe]|--input|--output|--error)$/),
}

const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/

// Words that open a compound command (`if x; then rm y; fi`, `{ rm y; }`, `! rm y`): the
// simple command after them is what runs, so rules look past them.
const RESERVED_WORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{'])

// Builtins that run their arguments as the command (`command rm x`, `exec rm x`, `env rm x`).
const TRANSPARENT_BUILTINS: Readonly<Record<string, (args: string[]) => number>> = {
  command: (args) => optionWords(args),
  // Stryker disable next-line ArrowFunction: slice(undefined) is slice(0), the same words
  builtin: () => 0,
  exec: (args) => optionWords(args, /^-[cl]*a$/),
  env: (args) => {
    // Options and assignments, in any order; env takes every word holding `=` before the
    // command for an assignment, whatever the name (`env 1x=y rm x` runs rm).
    let index = 0
    for (;;) {
      index += optionWords(args.slice(index), /^(-[i0v]*[uC]|--unset|--chdir)$/)
      if (!args[index]?.includes('=')) return index
      index += 1
    }
  },
}

/** How many leading words are options (`--` is one); an option matching `valued` takes the next word. */
function optionWords(args: string[], valued?: RegExp): number {
  let index = 0
  for (let word = args[0]; word?.startsWith('-'); word = args[index]) {
    index += valued?.test(word) ? 2 : 1
  }
  return index
}

/** Command substitution and process substitution run commands no prefix rule can see. */
export function hasHiddenCommands(command: string): boolean {
  return /\$\(|`|<\(|>\(/.test(command)
}

export interface SimpleCommand {
  /** Words joined by single spaces, wrappers stripped (`timeout 5 npm test` → `npm test`). */
  readonly text: string
  /** The same with leading `NAME=value` assignments also stripped (deny rules look through them). */
  readonly withoutAssignments: string
}

/**
 * The command lines inside `$(…)`, backquotes and process substitution `<(…)`/`>(…)`
 * (innermost first), which a deny rule must see too: `echo `rm -rf x`` and
 * `cat <(rm -rf x)` both run `rm -rf x`.
 */
export function substitutedCommands(command: string): string[] {
  const found: string[] = []
  for (const match of command.matchAll(/`([^`]*)`/g)) if (match[1]!.trim() !== '') found.push(match[1]!)
  for (const match of command.matchAll(/[$<>]\(([^()]*)\)/g))
    if (match[1]!.trim() !== '') found.push(match[1]!)
  return found
}

/**
 * The command with bash's line continuations joined: a backslash before a newline removes
 * both (`tou\<newline>ch x` runs `touch x`), unless that backslash is itself escaped (an
 * even run of backslashes: the newline then ends the command).
 */
export function joinContinuedLines(command: string): string {
  return command.replace(/(?<!\\)((?:\\\\)*)\\\n/g, '$1')
}

/** Splits a command line into its simple commands. Unparsable input yields the raw line. */
export function splitCommand(command: string): SimpleCommand[] {
  let tokens: ReturnType<typeof parse>
  try {
    tokens = parse(joinContinuedLines(command).replace(/\n/g, ' ; '), (name) => `$${name}`)
  } catch {
    // shell-quote throws on some malformed input; the raw line is then the only command.
    const text = command.trim()
    return [{ text, withoutAssignments: text }]
  }
  const commands: SimpleCommand[] = []
  let words: string[] = []
  const finish = () => {
    if (words.length > 0) commands.push(describe(words))
    words = []
  }
  for (const token of tokens) {
    if (typeof token === 'string') words.push(token)
    else if ('op' in token && token.op === 'glob') words.push(token.pattern)
    // Stryker disable next-line LogicalOperator: a token without `op` is a comment, and the test of `undefined` fails too
    else if ('op' in token && /^(&&|\|\||;|\||\|&|&|;;|\(|\))$/.test(token.op)) finish()
    else if ('op' in token)
      words.push(token.op) // redirections stay part of the command
    else {
      // The only token kind left is a comment.
      const { comment } = token as { comment: string }
      finish()
      // shell-quote's comment runs to the end of the input, over the ` ; ` that stood for
      // a newline: the lines after the comment still run, so they are split too.
      const next = comment.indexOf(' ; ')
      if (next >= 0) commands.push(...splitCommand(comment.slice(next + 3)))
    }
  }
  finish()
  return commands
}

function describe(words: string[]): SimpleCommand {
  const stripped = stripWrappers(words)
  let start = 0
  while (start < stripped.length - 1 && ENV_ASSIGNMENT.test(stripped[start] as string)) start += 1
  return {
    text: stripped.join(' '),
    withoutAssignments: stripWrappers(stripped.slice(start)).join(' '),
  }
}

function stripWrappers(words: string[]): string[] {
  let current = words
  for (;;) {
    const head = current[0]
    // Stryker disable next-line ConditionalExpression: the Set never has undefined; the length check is pinned by a test of `{`
    if (head !== undefined && RESERVED_WORDS.has(head) && current.length > 1) {
      current = current.slice(1)
      continue
    }
    // Stryker disable next-line ConditionalExpression: neither table has a key `undefined`
    const arity = head === undefined ? undefined : (WRAPPERS[head] ?? TRANSPARENT_BUILTINS[head])
    if (arity === undefined || current.length < 2) return current
    const rest = current.slice(1)
    current = rest.slice(arity(rest))
  }
}
