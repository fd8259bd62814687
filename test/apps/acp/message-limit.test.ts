// The size limit of incoming ACP messages: a line over it is dropped and its request answered
// ACP_MESSAGE_TOO_LARGE while the connection goes on (the SDK alone closed the connection
// without a word, and `dsh acp` exited 0).

import { spawn } from 'node:child_process'
import { type AddressInfo, connect, createServer } from 'node:net'
import { PassThrough } from 'node:stream'
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ACP_MAX_MESSAGE_BYTES, type JsonRpcId, limitMessages } from '../../../src/apps/acp/message-limit.js'
import { useTestHarnesses } from '../../support/harness.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, CLI, jsonLines, spawnCli, useModelWorlds } from '../cli/cli.js'
import { type AcpTestClient, startAcpClient } from './acp-client.js'

const start = useTestHarnesses()
const startWorld = useModelWorlds(useTempDirs('dsh-acp-limit-'))
const clients: AcpTestClient[] = []
afterEach(async () => {
  while (clients.length > 0) await clients.pop()!.close()
})

/** What passes the limiter, and the ids of the lines it refused, for `chunks` written in order. */
async function limit(chunks: string[], maxBytes: number) {
  const input = new PassThrough()
  const refused: (JsonRpcId | undefined)[] = []
  const output = limitMessages(input, maxBytes, (id) => refused.push(id))
  let passed = ''
  output.on('data', (chunk: Buffer) => {
    passed += chunk.toString('utf8')
  })
  const ended = new Promise((resolve) => output.on('end', resolve))
  for (const chunk of chunks) input.write(chunk)
  input.end()
  await ended
  return { passed, refused }
}

describe('limitMessages', () => {
  const big = 'x'.repeat(200)

  it('passes lines up to the limit whole, in any chunking, and drops longer ones', async () => {
    const small = '{"jsonrpc":"2.0","id":1,"method":"a"}'
    const long = `{"jsonrpc":"2.0","id":2,"method":"b","params":{"text":"${big}"}}`
    const text = `${small}\n${long}\n${small}\n${small}`
    const whole = await limit([text], 100)
    expect(whole).toEqual({ passed: `${small}\n${small}\n${small}`, refused: [2] })
    const bytes = await limit(text.split(''), 100)
    expect(bytes).toEqual(whole)
  })

  it('finds the top-level id wherever it is; a notification or a non-object has none', async () => {
    const lines = [
      `{"method":"b","params":{"id":"inner","text":"${big}"},"id":"outer \\" id"}`,
      `{"jsonrpc":"2.0","idx":1,"method":"n","params":{"text":"${big}"}}`,
      `{"jsonrpc":"2.0","id":null,"params":"${big}"}`,
      `{ "id" : -7 , "params":"${big}"}`,
      `{"id":"","params":"${big}"}`,
      `[1,2,"${big}"]`,
    ]
    const { passed, refused } = await limit([`${lines.join('\n')}\n`], 100)
    expect(passed).toBe('')
    expect(refused).toEqual(['outer " id', undefined, null, -7, '', undefined])
  })
})

describe('dsh acp message limit', () => {
  it('answers a request over the limit with ACP_MESSAGE_TOO_LARGE and goes on serving', async () => {
    const test = await start({ script: [{ text: 'small answer' }] })
    const client = await startAcpClient(test.harness, undefined, { maxMessageBytes: 64 * 1024 })
    clients.push(client)
    await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
    const { sessionId } = await client.agent.request('session/new', { cwd: test.home, mcpServers: [] })
    const prompt = (text: string) =>
      client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })
    await expect(prompt('B'.repeat(100 * 1024))).rejects.toMatchObject({
      code: -32000,
      data: { code: 'ACP_MESSAGE_TOO_LARGE', maxBytes: 64 * 1024 },
    })
    expect((await prompt('a small one')).stopReason).toBe('end_turn')
    expect(test.model.requests).toHaveLength(1)
  })

  describe('as a child process', () => {
    beforeAll(assertBuilt)

    it('a message over 32 MiB is answered with an error and said on stderr, and the server goes on', async () => {
      const world = await startWorld([])
      const server = spawnCli(['acp'], { env: world.env, cwd: world.project, openStdin: true })
      const send = (message: object) => server.child.stdin!.write(`${JSON.stringify(message)}\n`)
      const find = (id: number) => jsonLines(server.stdout()).find((message) => message.id === id)
      const answer = async (id: number) => {
        await until(() => find(id) !== undefined || server.child.exitCode !== null, 60_000, `answer ${id}`)
        return find(id) ?? { exited: server.child.exitCode, stderr: server.stderr() }
      }
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION } })
      await answer(1)
      const text = 'B'.repeat(ACP_MAX_MESSAGE_BYTES)
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'session/prompt',
        params: { sessionId: 'x', prompt: [{ type: 'text', text }] },
      })
      expect(await answer(2)).toMatchObject({
        error: { code: -32000, data: { code: 'ACP_MESSAGE_TOO_LARGE' } },
      })
      send({ jsonrpc: '2.0', id: 3, method: 'session/new', params: { cwd: world.project, mcpServers: [] } })
      expect(await answer(3)).toMatchObject({ result: { sessionId: expect.any(String) } })
      server.child.stdin!.end()
      const result = await server.done
      expect(result.code).toBe(0)
      expect(result.stderr).toMatch(
        /dsh: warning: acp: a message of \d+ bytes is over the 33554432-byte limit: dropped/,
      )
    })

    it('a stdin that fails (a socket reset by its peer) is one line and exit 1, not a clean shutdown', async () => {
      const world = await startWorld([])
      // The peer resets the connection once dsh is reading: its stdin then errors (ECONNRESET).
      const server = createServer((peer) => {
        peer.once('data', () => peer.resetAndDestroy())
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1')
      await new Promise((resolve) => socket.once('connect', resolve))
      try {
        const child = spawn(process.execPath, [CLI, 'acp'], {
          env: world.env,
          cwd: world.project,
          stdio: [socket, 'pipe', 'pipe'],
        })
        let stderr = ''
        child.stderr!.setEncoding('utf8').on('data', (text: string) => {
          stderr += text
        })
        // dsh writes nothing to stdin; the peer's reset is triggered from our side of the socket.
        socket.write('\n')
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
        expect(stderr).toMatch(/^dsh: acp: reading stdin failed: .*ECONNRESET/m)
        expect(code).toBe(1)
      } finally {
        socket.destroy()
        server.close()
      }
    })
  })
})
