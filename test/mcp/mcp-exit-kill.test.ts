// A stdio MCP server leads its own process group, and a dsh process that dies of an uncaught
// failure (no harness dispose runs) still takes the whole group with it: the exit hook of
// src/mcp/exit-kill.ts. Run in a child Node process on the built modules, so the failure is real.

import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, expect, it } from 'vitest'
import { groupGone } from '../support/processes.js'
import { useTempDirs } from '../support/temp-dir.js'

const makeDir = useTempDirs('dsh-mcp-exit-')
const HANGING_SERVER = resolve('test/mcp/fixtures/hanging-server.mjs')
const built = (path: string) => pathToFileURL(resolve('dist/src/mcp', path)).href

beforeAll(() => {
  if (!existsSync(resolve('dist/src/mcp/stdio-transport.js'))) throw new Error('run `npm run build` first')
})

it('an uncaught failure kills the server and what it started (its process group)', async () => {
  const pidsFile = join(makeDir(), 'pids')
  const script = `
    const { StdioProcessTransport } = await import(${JSON.stringify(built('stdio-transport.js'))})
    const { killOnExit } = await import(${JSON.stringify(built('exit-kill.js'))})
    const { existsSync } = await import('node:fs')
    const transport = new StdioProcessTransport({
      command: process.execPath,
      args: [${JSON.stringify(HANGING_SERVER)}],
      env: { ...process.env, HANG_PIDS: ${JSON.stringify(pidsFile)} },
    })
    await transport.start()
    killOnExit(transport.pid)
    const started = setInterval(() => {
      if (!existsSync(${JSON.stringify(pidsFile)})) return
      clearInterval(started)
      throw new Error('an uncaught failure')
    }, 20)
  `
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text
  })
  const code = await new Promise<number | null>((done) => child.on('close', done))
  expect(stderr).toContain('an uncaught failure')
  expect(code).toBe(1)
  const [server, grandchild] = readFileSync(pidsFile, 'utf8').trim().split(' ').map(Number)
  // The server led its own group (not the test's); nothing of that group is alive.
  expect(server).toBeGreaterThan(0)
  expect(grandchild).toBeGreaterThan(0)
  await groupGone(server!)
})
