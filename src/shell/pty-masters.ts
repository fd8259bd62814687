// Pseudo-terminal masters dsh holds without close-on-exec: node-pty opens a terminal's master
// so (node-pty issue #657) and Node cannot change a descriptor's flags. A child that inherits
// one can type into that terminal, and keeps it from hanging up its programs when dsh dies.
// Every spawn replaces them in the child: child_process through its stdio array, others
// (node-pty's fork) through a bash that closes them before it execs the program.

import { openSync } from 'node:fs'

const held = new Map<number, number>()
let devNull: number | undefined

/** Notes the master `fd` (one note per terminal); answers the function that forgets the note. */
export function holdPtyMaster(fd: number): () => void {
  held.set(fd, (held.get(fd) ?? 0) + 1)
  let released = false
  return () => {
    if (released) return
    released = true
    const count = (held.get(fd) ?? 1) - 1
    if (count > 0) held.set(fd, count)
    else held.delete(fd)
  }
}

/** The master descriptors held now, ascending. */
export function heldPtyMasters(): number[] {
  return [...held.keys()].sort((a, b) => a - b)
}

type StdioEntry = 'pipe' | 'ignore' | 'inherit' | 'overlapped' | number | null | undefined

/**
 * `stdio` for child_process.spawn with every held master replaced by /dev/null in the child:
 * libuv dup2s the entry's descriptor onto that number. Entries the caller left out below a
 * master are `ignore`, which leaves that number as it is (Node's own descriptors close on exec).
 */
export function withoutPtyMasters(stdio: readonly StdioEntry[]): StdioEntry[] {
  const masters = heldPtyMasters()
  if (masters.length === 0) return [...stdio]
  devNull ??= openSync('/dev/null', 'r+')
  const entries = [...stdio]
  for (const fd of masters) {
    for (let index = entries.length; index < fd; index++) entries[index] = 'ignore'
    if (fd >= stdio.length) entries[fd] = devNull
  }
  return entries
}

/**
 * The program and arguments that run `file args` with every held master closed first,
 * through `bash` (dash and POSIX sh cannot name descriptors past 9): for spawners that take no
 * stdio array. Unchanged when no master is held.
 */
export function closingPtyMasters(bash: string, file: string, args: readonly string[]): [string, string[]] {
  const masters = heldPtyMasters()
  if (masters.length === 0) return [file, [...args]]
  const close = masters.map((fd) => `${fd}>&-`).join(' ')
  return [bash, ['-c', `exec ${close}; exec "$0" "$@"`, file, ...args]]
}
