// The chat's slash commands: their names and help lines, and the closest known name
// for a mistyped one.

import { editDistance } from '../../core/edit-distance.js'
import { isMemoryNote } from './commands/memory.js'

export interface CommandInfo {
  name: string
  usage: string
  description: string
  aliases?: string[]
}

export const COMMANDS: readonly CommandInfo[] = [
  { name: 'help', usage: '/help', description: 'this list, and the keys', aliases: ['?'] },
  {
    name: 'clear',
    usage: '/clear',
    description: 'start a new session (the old one stays stored)',
    aliases: ['new'],
  },
  {
    name: 'resume',
    usage: '/resume [<n>|<id>]',
    description: "pick one of this folder's sessions (type to search), or switch to one (with a recap)",
  },
  { name: 'sessions', usage: '/sessions', description: "this folder's stored sessions" },
  {
    name: 'fork',
    usage: '/fork [<turn>]',
    description: "continue in a new session seeded with this one's turns (up to <turn>)",
  },
  { name: 'session', usage: '/session', description: 'the session id, title, folder and log file' },
  {
    name: 'rename',
    usage: '/rename [<title>]',
    description: "show or change this session's title (listings, search and the pickers show it)",
  },
  {
    name: 'model',
    usage: '/model [<name>]',
    description: "show or change the model from the next turn on (checked against the server's list)",
  },
  {
    name: 'effort',
    usage: '/effort [<level>]',
    description: 'show or change the thinking effort: off, low, high or max',
  },
  {
    name: 'init',
    usage: '/init',
    description: 'ask the model to write a starter AGENTS.md for this project',
  },
  {
    name: 'permissions',
    usage: '/permissions [<mode>]',
    description:
      'show the permission mode and rules; switch mode (auto, default, acceptEdits, plan, bypassPermissions)',
  },
  {
    name: 'rewind',
    usage: '/rewind [<turn>]',
    description: 'list the turns that changed files; with a turn, restore what changed in it and later',
  },
  {
    name: 'compact',
    usage: '/compact [<instructions>]',
    description: 'summarise the conversation so far to free the context window (Ctrl-C cancels)',
  },
  {
    name: 'context',
    usage: '/context',
    description: 'what fills the context window: system prompt, tools, messages, tool outputs, …',
  },
  { name: 'cost', usage: '/cost', description: 'tokens used by this session so far' },
  {
    name: 'status',
    usage: '/status',
    description: 'model, effort, mode, session, context, cost, MCP servers, hooks, sandbox',
  },
  {
    name: 'config',
    usage: '/config [<text>]',
    description: 'the effective config and where each value came from (file, env, flag, default)',
  },
  {
    name: 'doctor',
    usage: '/doctor',
    description: 'check the API key, model server, models, bwrap, rg, language servers, clipboard',
  },
  {
    name: 'memory',
    usage: '/memory',
    description: 'the instruction files the model gets (AGENTS.md, CLAUDE.md); reloads edited ones',
  },
  { name: 'hooks', usage: '/hooks', description: 'the hook files in use' },
  { name: 'lsp', usage: '/lsp', description: 'language servers: root, state, last error' },
  {
    name: 'terminals',
    usage: '/terminals [<id>]',
    description: "the model's terminals (state, size, command); with an id, that screen now",
  },
  {
    name: 'mcp',
    usage: '/mcp',
    description: 'MCP servers: state, tools, where each came from; their prompts as /mcp__<server>__<prompt>',
  },
  {
    name: 'exit',
    usage: '/exit',
    description: 'leave (so do Ctrl-D, and Ctrl-C on an empty input)',
    aliases: ['quit'],
  },
]

export const KEYS_HELP = `keys:
  Enter submits · Ctrl-J, \\+Enter or Shift+Enter (where the terminal reports it) insert a newline
  Up/Down history (kept per project) · Ctrl-R searches it · Tab completes commands and paths
  Shift-Tab switches to the next permission mode (auto, default, acceptEdits, plan)
  @path attaches a file's content · a pasted image path or Ctrl-V attaches an image
  typing during a reply queues the next prompt
  # note appends a line to the project's AGENTS.md (#~ note: to your own $DSH_HOME/AGENTS.md)
  Ctrl-C (or Esc on an empty input) interrupts a reply · Ctrl-O shows a cut diff whole, else shows/hides reasoning · Ctrl-D exits`

/** A line the chat handles itself: a `/command` or a `# note`. */
export function isCommandLine(text: string): boolean {
  return text.trimStart().startsWith('/') || isMemoryNote(text)
}

/** Every name a command answers to, for Tab completion. */
export function commandNames(): string[] {
  return COMMANDS.flatMap((command) => [command.name, ...(command.aliases ?? [])])
}

/** The command `name` refers to (its own name or an alias). */
export function findCommand(name: string): CommandInfo | undefined {
  return COMMANDS.find((command) => command.name === name || command.aliases?.includes(name))
}

/** The known name closest to `name` (edit distance at most 3), if any. */
export function closestCommand(name: string): string | undefined {
  let best: { name: string; distance: number } | undefined
  for (const candidate of commandNames()) {
    const distance = candidate.startsWith(name) ? 0.5 : editDistance(name, candidate)
    if (distance <= 3 && (best === undefined || distance < best.distance))
      best = { name: candidate, distance }
  }
  return best?.name
}

/**
 * The `/help` text, wrapped at word boundaries to `columns` (a terminal wrapping it would
 * cut words): a description's next lines line up under its start.
 */
export function helpText(columns = Number.POSITIVE_INFINITY): string {
  const width = Math.max(...COMMANDS.map((command) => command.usage.length))
  const lines = COMMANDS.flatMap((command) =>
    wrapWords(`  ${command.usage.padEnd(width)}  ${command.description}`, columns, width + 4),
  )
  const keys = KEYS_HELP.split('\n').flatMap((line) => wrapWords(line, columns, 4))
  return `commands:\n${lines.join('\n')}\n${keys.join('\n')}`
}

/** `line` cut at spaces into lines of at most `columns`, later ones indented by `indent`. */
export function wrapWords(line: string, columns: number, indent: number): string[] {
  if (line.length <= columns) return [line]
  const out: string[] = []
  let current = ''
  for (const word of line.split(/(?<=\S) (?=\S)/)) {
    const candidate = current === '' ? word : `${current} ${word}`
    if (candidate.length > columns && current.trim() !== '') {
      out.push(current)
      current = `${' '.repeat(indent)}${word}`
    } else current = candidate
  }
  if (current.trim() !== '') out.push(current)
  return out
}
