// Node 20 aborts at exit when a terminal it started on has hung up (the window was closed,
// tmux or ssh went away): its exit path puts each stdio terminal back as it found it
// (tcsetattr) and asserts that worked, and a hung-up terminal answers EIO. So dsh printed
// "Assertion failed … ResetStdio" to nobody and died of SIGABRT (exit 134, a core dump) where
// it meant to exit with its own code. Fixed in later Node (nodejs/node#51519, #58200), not in
// Node 20.20. Node skips a descriptor that no longer refers to the file it had at start, so at
// exit each stdio descriptor that is a terminal no more is pointed at /dev/null.

import { closeSync, fstatSync, openSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'

const STDIO = [0, 1, 2] as const

/** Installs the exit hook once, for the whole process (main.ts). */
export function detachHungUpTerminalsAtExit(): void {
  if (process.platform === 'win32') return
  process.on('exit', detachHungUpTerminals)
}

/**
 * Points each stdio descriptor that is a character device but not a working terminal any
 * more at /dev/null. /dev/null itself is left alone (a headless run's usual stdio), so only a
 * terminal that may have hung up costs the terminal module's load. Never throws: at worst
 * Node's own check runs as before.
 */
export function detachHungUpTerminals(): void {
  let devNull: number
  try {
    devNull = statSync('/dev/null').rdev
  } catch {
    // No /dev/null to point at: leave it to Node.
    return
  }
  for (const fd of STDIO) {
    try {
      const stat = fstatSync(fd)
      if (!stat.isCharacterDevice() || stat.rdev === devNull || isTerminal(fd)) continue
      // open() takes the lowest free descriptor: `fd`, unless a lower one is closed too.
      closeSync(fd)
      const opened = openSync('/dev/null', fd === 0 ? 'r' : 'w')
      if (opened !== fd) closeSync(opened)
    } catch {
      // Closed already (Node skips it too), or /dev/null would not open: as before.
    }
  }
}

/** isatty(3) through Node's terminal module, loaded only when a character device asks for it. */
function isTerminal(fd: number): boolean {
  const tty = createRequire(import.meta.url)('node:tty') as typeof import('node:tty')
  return tty.isatty(fd)
}
