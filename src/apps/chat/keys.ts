// Key input: raw mode on the terminal, Node's keypress decoder, and bracketed paste
// (`ESC [200~ … ESC [201~`) gathered into one paste event, so a multi-line paste is
// one edit and never several prompts.

import { emitKeypressEvents } from 'node:readline'
import type { KeyPress } from './input.js'

const PASTE_ON = '\u001b[?2004h'
const PASTE_OFF = '\u001b[?2004l'

export interface KeySource {
  /** Stops listening, leaves raw mode and bracketed paste. */
  close(): void
}

/** Listens to `input` (a terminal) and calls `onKey` for each key press or paste. */
export function listenToKeys(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  onKey: (key: KeyPress) => void,
): KeySource {
  emitKeypressEvents(input)
  input.setRawMode(true)
  output.write(PASTE_ON)
  let paste: string | undefined
  const listener = (sequence: string | undefined, key: KeyPress | undefined) => {
    const name = key?.name
    if (name === 'paste-start') {
      paste = ''
      return
    }
    if (name === 'paste-end') {
      const text = paste ?? ''
      paste = undefined
      onKey({ paste: text })
      return
    }
    if (paste !== undefined) {
      // Inside a paste every key is text: Enter is a newline, never a submit.
      paste += key?.name === 'return' || key?.name === 'enter' ? '\n' : (sequence ?? key?.sequence ?? '')
      return
    }
    onKey({ ...key, sequence: sequence ?? key?.sequence })
  }
  input.on('keypress', listener)
  input.resume()
  return {
    close() {
      input.off('keypress', listener)
      output.write(PASTE_OFF)
      input.setRawMode(false)
      input.pause()
    },
  }
}
