// node-pty destroys a terminal's socket 200 ms after the program exits, dropping output the
// kernel still holds; keepLastOutput reads that output first (a real pseudo-terminal).

import { type IPty, spawn } from '@lydell/node-pty'
import { describe, expect, it } from 'vitest'
import { keepLastOutput } from '../../src/terminal/pty-drain.js'

function spawnPty(command: string): IPty {
  return spawn('bash', ['-c', command], { name: 'xterm-256color', cols: 80, rows: 24, env: process.env })
}

/** Stands for an event loop too busy to read: the socket never reads, so all output waits in the kernel. */
function neverRead(pty: IPty): void {
  const socket = (pty as unknown as { _socket: { pause(): void; _read(): void } })._socket
  socket._read = () => {}
  socket.pause()
}

describe('keepLastOutput', () => {
  it('hands on the output a program left unread when node-pty gives up after its exit', async () => {
    const pty = spawnPty('for i in $(seq 1 100); do echo "line $i"; done; echo LAST""LINE')
    let text = ''
    pty.onData((data) => {
      text += data
    })
    neverRead(pty)
    keepLastOutput(pty, (data) => {
      text += data
    })
    const exit = await new Promise<{ exitCode: number }>((resolve) => pty.onExit(resolve))
    expect(exit.exitCode).toBe(0)
    expect(text).toContain('line 1\r\nline 2\r\n')
    expect(text).toContain('line 100\r\nLASTLINE\r\n')
  })

  it('keeps a character split between reads whole', async () => {
    // 4,095 ASCII bytes, then "é" (two bytes) and more: the kernel hands them on in pieces.
    const pty = spawnPty("printf '%4095s' '' | tr ' ' a; printf 'éé\\n'")
    let text = ''
    neverRead(pty)
    keepLastOutput(pty, (data) => {
      text += data
    })
    await new Promise((resolve) => pty.onExit(resolve))
    expect(text).toBe(`${'a'.repeat(4095)}éé\r\n`)
  })
})
