// Parameter schemas of the terminal tools, with the names and fields the issue fixes so
// scripts and hooks can rely on them. Anything else the model sends is stripped by zod.

import * as z from 'zod'
import { type SchemaOf, toolParameters } from '../../core/tool-parameters.js'

// Shared fields, built with the schemas that use them.
const id = () => z.string().min(1).describe('The terminal id terminal_start answered (t1, t2, …).')
const cols = () => z.number().int().min(2).max(500)
const rows = () => z.number().int().min(2).max(200)

export const startParameters = toolParameters('terminal_start', () =>
  z.object({
    command: z
      .string()
      .describe('The program to run (through bash -c, like the bash tool). Empty: an interactive shell.'),
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe("Working directory; default: the session's working directory."),
    cols: cols().optional().describe('Columns (default 120).'),
    rows: rows().optional().describe('Rows (default 30).'),
    ready: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A pattern (regular expression) in the output that means the program is ready, e.g. "Local: http://"; terminal_start returns once it appears.',
      ),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('How long to wait for `ready` (default 30000, max 600000).'),
  }),
)

export const sendParameters = toolParameters('terminal_send', () =>
  z.object({
    id: id(),
    text: z.string().optional().describe('Text typed as is; a newline presses Enter.'),
    keys: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'Named keys pressed after the text, in order: Enter, Tab, Esc, Backspace, Up, Down, Left, Right, Ctrl-C, Ctrl-D, Ctrl-Z, …',
      ),
  }),
)

export const readParameters = toolParameters('terminal_read', () =>
  z.object({
    id: id(),
    wait_for: z
      .string()
      .min(1)
      .optional()
      .describe('A pattern (regular expression) to wait for in output that is new since the last read.'),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Upper bound of the wait (default 10000 with wait_for, 3000 without; max 600000).'),
  }),
)

export const resizeParameters = toolParameters('terminal_resize', () =>
  z.object({ id: id(), cols: cols(), rows: rows() }),
)
export const idParameters = toolParameters('terminal_id', () => z.object({ id: id() }))
export const listParameters = toolParameters('terminal_list', () => z.object({}))

export type StartArguments = z.infer<SchemaOf<typeof startParameters>>
export type SendArguments = z.infer<SchemaOf<typeof sendParameters>>
export type ReadArguments = z.infer<SchemaOf<typeof readParameters>>
export type ResizeArguments = z.infer<SchemaOf<typeof resizeParameters>>
