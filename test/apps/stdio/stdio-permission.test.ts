// `dsh stdio` asks its client about tool calls the permission policy would `ask` about
// (`session/requestPermission`, answered allow / allow_always / deny), denies when no valid
// answer can come (the input ended, a malformed answer), and reads JSON-RPC batches.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { stdioCanAsk } from '../../../src/apps/stdio/index.js'
import type { ScriptRequest } from '../../../src/llm/index.js'
import { useTestHarnesses } from '../../support/harness.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { type RpcMessage, startStdioClient } from './stdio-client.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-stdio-perm-')

const lastToolResult = (request: ScriptRequest) =>
  [...request.messages].reverse().find((message) => message.role === 'tool')?.content ?? ''

/** A turn whose one tool call (a bash command that needs approval) creates `made`. */
async function askingTurn() {
  const cwd = tempDir()
  const made = join(cwd, 'made')
  const test = await start({
    script: [
      { toolCalls: [{ name: 'bash', arguments: { command: `touch ${made}` } }] },
      (request) => ({ text: `tool said: ${lastToolResult(request)}` }),
    ],
    permissions: { canAsk: stdioCanAsk, mode: 'default' },
  })
  const client = startStdioClient(test.harness)
  const init = await client.request('initialize', { cwd, capabilities: { requestPermission: true } })
  expect(init.result).toMatchObject({ requestPermission: true })
  const answer = client.request('session/prompt', { text: 'make the file' })
  const asked = await client.waitFor((message) => message.method === 'session/requestPermission')
  return { client, answer, asked, made, sessionId: init.result.sessionId as string }
}

const reply = (asked: RpcMessage, result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: asked.id, result })

describe('session/requestPermission', () => {
  it('is a request naming the call; allow runs it', async () => {
    const { client, answer, asked, made, sessionId } = await askingTurn()
    expect(typeof asked.id).toBe('string')
    expect(asked.params).toMatchObject({
      sessionId,
      toolCall: { name: 'bash', input: { command: expect.stringContaining('touch') } },
      options: ['allow', 'allow_always', 'deny'],
    })
    expect(asked.params.reason).toEqual(expect.any(String))
    client.sendLine(reply(asked, { outcome: 'allow' }))
    expect((await answer).result).toMatchObject({ reason: 'completed' })
    expect(existsSync(made)).toBe(true)
    client.end()
    await client.done
  })

  it('deny does not run it, and the model is told', async () => {
    const { client, answer, asked, made } = await askingTurn()
    client.sendLine(reply(asked, { outcome: 'deny' }))
    const result = (await answer).result
    expect(result).toMatchObject({ reason: 'completed' })
    expect(result.text).toContain('approval required and not given')
    expect(existsSync(made)).toBe(false)
    client.end()
    await client.done
  })

  it('a malformed answer denies', async () => {
    const { client, answer, asked, made } = await askingTurn()
    client.sendLine(reply(asked, { outcome: 'yes please' }))
    expect((await answer).result.text).toContain('approval required and not given')
    expect(existsSync(made)).toBe(false)
    client.end()
    await client.done
  })

  it('the input ending while the question is open denies; the turn still finishes and is answered', async () => {
    const { client, answer, made } = await askingTurn()
    client.end()
    await client.done
    const result = (await answer).result
    expect(result).toMatchObject({ reason: 'completed' })
    expect(result.text).toContain('approval required and not given')
    expect(existsSync(made)).toBe(false)
  })

  it('without the capability nothing is asked: the call is denied as in any headless run', async () => {
    const cwd = tempDir()
    const made = join(cwd, 'made')
    const test = await start({
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: `touch ${made}` } }] },
        (request) => ({ text: `tool said: ${lastToolResult(request)}` }),
      ],
      permissions: { canAsk: stdioCanAsk, mode: 'default' },
    })
    const client = startStdioClient(test.harness)
    const init = await client.request('initialize', { cwd })
    expect(init.result).toMatchObject({ requestPermission: false })
    const answer = await client.request('session/prompt', { text: 'make the file' })
    expect(answer.result.text).toContain('this run cannot ask for approval')
    expect(client.messages.some((message) => message.method === 'session/requestPermission')).toBe(false)
    expect(existsSync(made)).toBe(false)
    client.end()
    await client.done
  })
})

describe('JSON-RPC batches', () => {
  it('answers an array of requests with an array of responses; notifications give no entry', async () => {
    const { harness } = await start({ script: [{ text: 'batched answer' }] })
    const client = startStdioClient(harness)
    client.sendLine(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'initialize', params: { cwd: tempDir() } },
        { jsonrpc: '2.0', id: 'b', method: 'session/prompt', params: { text: 'hi' } },
        { jsonrpc: '2.0', method: 'session/nothing' },
        { jsonrpc: '2.0', id: 'c', method: 'no/such/method' },
        { nonsense: true },
      ]),
    )
    const batch = await client.waitFor((message) => Array.isArray(message))
    const answers = batch as unknown as RpcMessage[]
    expect(answers.map((answer) => answer.id)).toEqual(['a', 'b', 'c', null])
    expect(answers[0]!.result).toMatchObject({ resumed: false })
    expect(answers[1]!.result).toMatchObject({ reason: 'completed', text: 'batched answer' })
    expect(answers[2]!.error).toMatchObject({ code: -32601 })
    expect(answers[3]!.error).toMatchObject({ code: -32600 })
    client.end()
    await client.done
  })

  it('an empty array is one Invalid Request error', async () => {
    const { harness } = await start()
    const client = startStdioClient(harness)
    client.sendLine('[]')
    const error = await client.response(null)
    expect(error).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: empty batch' },
    })
    client.end()
    await client.done
  })
})
