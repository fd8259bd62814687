// How permission rules see terminal calls: a started command as a `Bash` command, and a line
// sent to a shell as the command it runs — at a shell in the foreground, and typed ahead while
// another program runs in front of a waiting shell. A line the model's typing does not tell
// (arrows, history, completion) is read off the screen, or the call cannot be checked.

import { DshError } from '../../core/errors.js'
import type { PermissionView } from '../../plugin-api/index.js'
import type { EnteredLine, TerminalSession } from '../../terminal/index.js'
import {
  expandsHistory,
  isShell,
  keyBytes,
  TerminalErrorCode,
  typedText,
  typeInto,
} from '../../terminal/index.js'

export function startView(input: Readonly<Record<string, unknown>>): PermissionView {
  const command = typeof input.command === 'string' ? input.command : ''
  // An empty command is an interactive shell: rules see the shell, like `bash`.
  return { tool: 'Bash', input: { command: command.trim() === '' ? 'bash -i' : command } }
}

/**
 * The Bash view of a send that runs lines at a shell; undefined when nothing would run there.
 * Throws (which denies the call) when a line would run whose text cannot be told.
 */
export function sendView(
  terminal: TerminalSession | undefined,
  input: Readonly<Record<string, unknown>>,
): PermissionView | undefined {
  if (!terminal?.running) return undefined
  const foreground = terminal.foreground()
  const atShell = isShell(foreground)
  const text = typeof input.text === 'string' ? typedText(input.text) : ''
  const keys = Array.isArray(input.keys) ? input.keys.filter((key) => typeof key === 'string') : []
  // An unknown key is refused by the tool itself; here it changes nothing.
  const pressed = keys.map((key) => safeKey(key)).join('')
  const { entered } = typeInto(terminal.lineState, text + pressed)
  if (entered.length === 0) return undefined
  // Another program reads the keys, unless it leaves them for a shell waiting behind it.
  if (!atShell && !terminal.shellWaits()) return undefined
  const commands = entered.flatMap((line) =>
    atShell ? atPrompt(terminal, line) : typedAhead(terminal, foreground, line),
  )
  const expanding = commands.find(expandsHistory)
  if (expanding !== undefined)
    throw new DshError(
      `the line ${JSON.stringify(expanding)} uses history expansion (!) at ${terminal.id}'s shell, so what runs cannot be told: type the command itself`,
      TerminalErrorCode.UnknownLine,
    )
  return { tool: 'Bash', input: { command: commands.join('\n') } }
}

/** A line run at the shell's prompt: as typed, else as the screen shows it. */
function atPrompt(terminal: TerminalSession, line: EnteredLine): string[] {
  if (line.kind === 'known') return [line.text]
  const shown = line.kind === 'earlier' ? terminal.shownLine(line.typed) : undefined
  if (shown !== undefined) return shown
  throw new DshError(
    line.kind === 'earlier'
      ? `the screen of ${terminal.id} does not show the edited line yet; read it with terminal_read, then send the Enter`
      : `the keys of this call change the line at ${terminal.id}'s shell (arrows, Tab, history, Esc, Ctrl-X) and then run it, so what runs cannot be told: send those keys, read the screen, then send the Enter in its own call`,
    TerminalErrorCode.UnknownLine,
  )
}

/**
 * A line sent while `foreground` runs in front of a waiting shell. A program that reads keys
 * as they come (an editor, a pager) takes them itself: its lines are checked as typed, as a
 * guess where keys changed them. In line mode the kernel keeps what it does not read for
 * the shell, which then runs the keys' editing too: a line whose text is unknown is refused.
 */
function typedAhead(terminal: TerminalSession, foreground: string, line: EnteredLine): string[] {
  if (line.kind === 'known') return [line.text]
  if (terminal.readsKeysAtOnce()) return [...line.guesses]
  throw new DshError(
    `${foreground} is in front of a shell at ${terminal.id} and leaves typed lines to it; this call edits a line with keys (arrows, Tab, history, Esc, Ctrl-X) and runs it, so what the shell would run cannot be told: wait until ${foreground} ends, or end its input with Enter or Ctrl-C first`,
    TerminalErrorCode.UnknownLine,
  )
}

function safeKey(name: string): string {
  try {
    return keyBytes(name)
  } catch {
    // Reported to the model when the tool runs; nothing is sent then.
    return ''
  }
}
