// How permission rules see terminal calls: a started command as a `Bash` command, and a
// line sent to a shell (the terminal's foreground program) as the command it runs. A line
// whose text the model's typing does not tell (history, completion) is read off the screen.

import type { PermissionView } from '../../plugin-api/index.js'
import type { TerminalSession } from '../../terminal/index.js'
import { keyBytes, typedText, typeInto } from '../../terminal/index.js'

const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'fish', 'ksh', 'mksh', 'ash', 'busybox', 'tcsh', 'csh'])

/** True when `program` (a foreground process name) is a shell. */
export function isShell(program: string): boolean {
  return SHELLS.has(program.replace(/^-/, '').split('/').at(-1) ?? '')
}

export function startView(input: Readonly<Record<string, unknown>>): PermissionView {
  const command = typeof input.command === 'string' ? input.command : ''
  // An empty command is an interactive shell: rules see the shell, like `bash`.
  return { tool: 'Bash', input: { command: command.trim() === '' ? 'bash -i' : command } }
}

/** The Bash view of a send that ends lines at a shell; undefined when nothing would run there. */
export function sendView(
  terminal: TerminalSession | undefined,
  input: Readonly<Record<string, unknown>>,
): PermissionView | undefined {
  if (!terminal?.running || !isShell(terminal.foreground())) return undefined
  const text = typeof input.text === 'string' ? typedText(input.text) : ''
  const keys = Array.isArray(input.keys) ? input.keys.filter((key) => typeof key === 'string') : []
  // An unknown key is refused by the tool itself; here it changes nothing.
  const pressed = keys.map((key) => safeKey(key)).join('')
  const { entered } = typeInto(terminal.currentLine, text + pressed)
  if (entered.length === 0) return undefined
  const commands = entered.map((line) => line ?? promptless(terminal.tail(1)[0] ?? ''))
  return { tool: 'Bash', input: { command: commands.join('\n') } }
}

function safeKey(name: string): string {
  try {
    return keyBytes(name)
  } catch {
    // Reported to the model when the tool runs; nothing is sent then.
    return ''
  }
}

/** The cursor line without a shell prompt (up to the last `$ `, `# `, `% ` or `> `). */
export function promptless(line: string): string {
  const match = /^.*?[$#%>] (.*)$/.exec(line)
  return (match ? match[1]! : line).trim()
}
