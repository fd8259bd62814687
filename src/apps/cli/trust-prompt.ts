// The chat's one question before a project folder may bring its own configuration.
// Minimal on purpose: one line, y or no; the answer yes is remembered by the trust store.

import { createInterface } from 'node:readline/promises'
import { toTerminalText } from '../../core/terminal-text.js'

/** Asks on the terminal; without one (piped input) nothing is asked and the folder stays untrusted. */
export async function askProjectTrust(folder: string, brings: readonly string[]): Promise<boolean> {
  if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) return false
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  try {
    const what = brings.length > 0 ? brings.join(', ') : 'its own configuration'
    process.stdout.write(
      `${toTerminalText(folder)} brings ${toTerminalText(what)}.\nThese run commands on your machine. Only trust folders whose files you have read.\n`,
    )
    const answer = await rl.question('Trust this folder? [y/N] ')
    return /^y(es)?$/i.test(answer.trim())
  } finally {
    rl.close()
  }
}
