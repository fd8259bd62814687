// What a line editor would hold after some keystrokes: the model's typing is followed so a
// line sent to a shell can be checked as the command it runs. Editing keys that make the
// line unknowable (arrows, history, completion) turn it to `undefined` until it is ended.

export interface TypedLines {
  /** The line being typed after the keystrokes; undefined when not known. */
  line: string | undefined
  /** Lines ended with Enter, in order; undefined for a line whose text was not known. */
  entered: (string | undefined)[]
}

const ENTER = '\r'
const INTERRUPT = '\x03'
const KILL_LINE = '\x15'

export function typeInto(line: string | undefined, data: string): TypedLines {
  const entered: (string | undefined)[] = []
  let current = line
  for (const char of data) {
    if (char === ENTER || char === '\n') {
      entered.push(current)
      current = ''
    } else if (char === INTERRUPT || char === KILL_LINE) current = ''
    else if (current === undefined) continue
    else if (char === '\x7f' || char === '\b') current = current.slice(0, -1)
    else if (char < ' ' || char === '\x7f') current = undefined
    else current += char
  }
  return { line: current, entered }
}
