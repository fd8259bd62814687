// Which bash command lines only read, for plan mode: split with the same parser the Bash
// permission rules use (bash-command.ts), every simple command must be a known reader with
// no writing option, and nothing may be written by a redirection. Anything not proved
// read-only (a substitution, an unknown program, `find -delete`, `> file`) is not: fail closed.

import { hasHiddenCommands, splitCommand } from './bash-command.js'

/** Programs that only read or print, whatever their (non-listed) options. */
const READERS = new Set([
  'cat',
  'head',
  'tail',
  'less',
  'more',
  'wc',
  'ls',
  'tree',
  'pwd',
  'echo',
  'printf',
  'which',
  'type',
  'file',
  'stat',
  'du',
  'df',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'cut',
  'tr',
  'diff',
  'cmp',
  'comm',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'date',
  'whoami',
  'id',
  'uname',
  'printenv',
  'nl',
  'od',
  'hexdump',
  'jq',
  'true',
  'false',
  'test',
  '[',
  'column',
  'sha256sum',
  'sha1sum',
  'md5sum',
  'cksum',
  'env',
  'tac',
  'rev',
  'fold',
])

/** Options that make an otherwise reading program write or run something. */
const WRITING_OPTIONS: Readonly<Record<string, RegExp>> = {
  find: /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/,
  sort: /^(-o|--output(=.*)?|-o.+)$/,
  rg: /^--pre(=.*)?$/,
  tree: /^-o$/,
  date: /^(-s|--set(=.*)?)$/,
}

/** git subcommands that only read. */
const GIT_READERS = new Set([
  'status',
  'log',
  'diff',
  'show',
  'blame',
  'grep',
  'ls-files',
  'ls-tree',
  'rev-parse',
  'describe',
  'shortlog',
  'cat-file',
  'reflog',
  'whatchanged',
])
/** `git branch`/`git tag`/`git remote` read only when listing. */
const GIT_LISTERS: Readonly<Record<string, RegExp>> = {
  branch: /^(-a|-r|-v|-vv|--all|--remotes|--list|--show-current|--contains|--merged|--no-merged|--verbose)$/,
  tag: /^(-l|--list|-n\d*)$/,
  remote: /^(-v|--verbose|show|get-url)$/,
}

/** Why `command` is not read-only, or undefined when it is. */
export function notReadOnly(command: string): string | undefined {
  if (hasHiddenCommands(command)) return 'it runs commands inside $(…), backquotes or <(…)'
  const parts = splitCommand(command)
  if (parts.length === 0) return 'it is empty'
  for (const part of parts) {
    const words = part.withoutAssignments.split(' ').filter((word) => word !== '')
    const why = simpleNotReadOnly(words)
    if (why !== undefined) return `${words[0] ?? part.text}: ${why}`
  }
  return undefined
}

export function isReadOnlyCommand(command: string): boolean {
  return notReadOnly(command) === undefined
}

function simpleNotReadOnly(words: string[]): string | undefined {
  const redirect = writingRedirection(words)
  if (redirect !== undefined) return redirect
  const [program, ...args] = words
  if (program === undefined) return 'no command'
  if (program === 'git') return gitNotReadOnly(args)
  if (!READERS.has(program) && WRITING_OPTIONS[program] === undefined) return 'not a known read-only command'
  const writing = WRITING_OPTIONS[program]
  const bad = writing ? args.find((arg) => writing.test(arg)) : undefined
  return bad === undefined ? undefined : `${bad} writes or runs commands`
}

/** `> file`, `>> file`, `&> file` write; `> /dev/null` and `2>&1` do not. */
function writingRedirection(words: string[]): string | undefined {
  for (const [index, word] of words.entries()) {
    if (!/^(>|>>|>\||&>|&>>|>&)$/.test(word)) continue
    const target = words[index + 1]
    if (target === '/dev/null' || (word === '>&' && /^\d$/.test(target ?? ''))) continue
    return `the redirection ${word} ${target ?? ''} writes a file`
  }
  return undefined
}

function gitNotReadOnly(args: string[]): string | undefined {
  // Global options before the subcommand (`git -C dir log`, `git --no-pager diff`).
  let index = 0
  while (args[index]?.startsWith('-')) index += args[index] === '-C' || args[index] === '-c' ? 2 : 1
  const sub = args[index]
  const rest = args.slice(index + 1)
  if (sub === undefined) return 'no git subcommand'
  if (GIT_READERS.has(sub)) {
    return rest.some((arg) => /^--output(=|$)/.test(arg)) ? '--output writes a file' : undefined
  }
  const lister = GIT_LISTERS[sub]
  if (lister && rest.every((arg) => lister.test(arg))) return undefined
  return `git ${sub} may change the repository`
}
