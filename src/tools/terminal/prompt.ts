// Model-facing text of the terminal tools.

import { DSH_ENV_PREFIX } from '../../shell/namespace.js'
import { KEY_NAMES } from '../../terminal/keys.js'

export const TERMINAL_START_DESCRIPTION = `Starts a program in a persistent terminal (a real pseudo-terminal with a screen) and returns its id (t1, t2, …). Use it for anything interactive or long-running: REPLs (python3, node), programs that ask questions, TUIs (less, top, git rebase -i), dev servers and watchers. For ordinary commands that run to completion use \`bash\`.

- \`command\` runs through bash -c in the session's working directory (or \`cwd\`); an empty command starts an interactive shell.
- The terminal keeps running across tool calls and turns until you call \`terminal_kill\` or the session ends.
- \`ready\`: a pattern that means the program is ready (e.g. "Local: http://" or "listening on"); the call waits for it (bounded by \`timeout_ms\`) and shows the screen. Without it, the call returns the first screen once output settles.
- Same environment as \`bash\`: \`$${DSH_ENV_PREFIX}*\` variables, no credentials, the same permission rules.`

export const TERMINAL_SEND_DESCRIPTION = `Types into a terminal: \`text\` as is (a newline presses Enter), then the named \`keys\` in order. Keys: ${KEY_NAMES}. Read the result with \`terminal_read\`.`

export const TERMINAL_READ_DESCRIPTION = `Shows a terminal: the scrollback lines that are new since the last read, then the current screen as text with the cursor position, and the program's exit status once it ended. Waits first until output settles or, with \`wait_for\`, until the pattern appears in new output — never longer than \`timeout_ms\`; a read that gave up says so. Long scrollback is cut to its last lines, with the path of a file holding the full output.`

export const TERMINAL_RESIZE_DESCRIPTION =
  'Resizes a terminal (columns and rows); the program is told, like a resized window.'

export const TERMINAL_KILL_DESCRIPTION =
  'Stops a terminal: its program and everything it started are ended, and the id is forgotten.'

export const TERMINAL_LIST_DESCRIPTION =
  "Lists this session's terminals: id, status (running or exit status), the program in the foreground, size and command."
