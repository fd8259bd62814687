// Which programs in a terminal are shells, for the permission view of typed lines: the
// foreground program, a job-control shell waiting in the terminal's session for its
// foreground job to end (Linux /proc), and whether that job reads keys as they come (stty).

import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { withoutPtyMasters } from '../shell/index.js'

const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'fish', 'ksh', 'mksh', 'ash', 'busybox', 'tcsh', 'csh'])

/** True when `program` (a foreground process name) is a shell. */
export function isShell(program: string): boolean {
  return SHELLS.has(program.replace(/^-/, '').split('/').at(-1) ?? '')
}

/**
 * The readings of a screen line whose prompt is not known: the whole line and what follows
 * each prompt mark (`$ `, `# `, `% `, `> `) in it, so a mark typed into the command cannot
 * hide what precedes it.
 */
export function withoutPrompts(line: string): string[] {
  const readings = [line.trim()]
  for (const mark of line.matchAll(/[$#%>] /g)) readings.push(line.slice(mark.index + 2).trim())
  return [...new Set(readings)].filter((reading) => reading !== '')
}

/**
 * Whether a shell in session `sessionId` waits for the terminal's foreground job: a shell
 * process outside the foreground process group, as a job-control shell is while its job
 * runs. Text typed meanwhile and left unread by the job is what that shell reads next. A
 * shell in the foreground group (`sh -c` around a program) does not read the terminal.
 * True where /proc cannot be read (fail closed).
 */
export function shellWaits(sessionId: number): boolean {
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return true
  }
  for (const name of names) {
    if (name.charCodeAt(0) > 57) continue // not a pid
    let stat: string
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'latin1')
    } catch {
      // Gone since the listing, or not ours to read.
      continue
    }
    const close = stat.lastIndexOf(')')
    // After the name: state ppid pgrp session tty_nr tpgid.
    const fields = stat.slice(close + 2).split(' ', 6)
    if (Number(fields[3]) !== sessionId || fields[0] === 'Z') continue
    const program = stat.slice(stat.indexOf('(') + 1, close)
    if (isShell(program) && fields[2] !== fields[5]) return true
  }
  return false
}

/**
 * Whether the terminal `ptsPath` is in non-canonical mode (`-icanon`): its foreground program
 * reads each key as it comes (an editor, a pager, a REPL) instead of leaving typed lines in
 * the kernel's buffer. False when it cannot be told (fail closed: typed text may wait there).
 */
export function readsKeysAtOnce(ptsPath: string | undefined): boolean {
  if (ptsPath === undefined) return false
  const stty = spawnSync('stty', ['-F', ptsPath, '-a'], {
    encoding: 'utf8',
    timeout: 2_000,
    stdio: withoutPtyMasters(['ignore', 'pipe', 'pipe']),
  })
  return stty.status === 0 && /(^|\s)-icanon(\s|$)/.test(stty.stdout)
}
