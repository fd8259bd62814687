// The least a headless turn can do, with no dsh code: the second baseline of
// headless-turn.bench.ts. Per step it does what any harness keeping SPEC's promises must:
// send the conversation so far to the model (keep-alive HTTP, streamed answer read to its
// end), parse the tool call, append the answer to a session file and fsync it, run the
// command as a fresh `bash -c` (its own process group, output piped back), and append and
// fsync the result. Nothing else: no permissions, hooks, containment, events or usage.
// The model's address comes from $DSH_HOME/config.yaml (`baseUrl: …`), as dsh reads it.
// CommonJS, so Node starts it as it starts `node -e 0` (no ES module loader).
'use strict'
const { spawn } = require('node:child_process')
const { fsyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } = require('node:fs')
const http = require('node:http')
const { tmpdir } = require('node:os')
const { join } = require('node:path')

const BASH_TOOL = {
  type: 'function',
  function: {
    name: 'bash',
    description: 'Run a command',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
}

const config = readFileSync(join(process.env.DSH_HOME, 'config.yaml'), 'utf8')
const endpoint = new URL(`${/baseUrl: (\S+)/.exec(config)[1]}/chat/completions`)
const agent = new http.Agent({ keepAlive: true })
const folder = mkdtempSync(join(tmpdir(), 'dsh-minimal-turn-'))
const session = openSync(join(folder, 'session.jsonl'), 'a')
const messages = [{ role: 'user', content: process.argv.at(-1) }]

/** One checkpoint: the event is on disk before the turn goes on. */
function append(event) {
  writeSync(session, `${JSON.stringify(event)}\n`)
  fsyncSync(session)
}

/** One model request; resolves with the streamed answer's text and tool calls. */
function ask() {
  const body = JSON.stringify({ model: 'deepseek-chat', stream: true, messages, tools: [BASH_TOOL] })
  const headers = { 'content-type': 'application/json', authorization: 'Bearer minimal' }
  return new Promise((resolve, reject) => {
    const request = http.request(endpoint, { method: 'POST', agent, headers }, (response) => {
      let stream = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => {
        stream += chunk
      })
      response.on('end', () => {
        const calls = []
        let content = ''
        for (const line of stream.split('\n')) {
          if (!line.startsWith('data: ') || line === 'data: [DONE]') continue
          const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta ?? {}
          if (delta.content) content += delta.content
          for (const part of delta.tool_calls ?? []) {
            calls[part.index] ??= { id: part.id, name: part.function?.name, arguments: '' }
            calls[part.index].arguments += part.function?.arguments ?? ''
          }
        }
        resolve({ content, calls })
      })
    })
    request.on('error', reject)
    request.end(body)
  })
}

/** `bash -c command` in its own process group; resolves with its exit code and output. */
function bash(command) {
  const child = spawn('bash', ['-c', command], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH },
  })
  let output = ''
  for (const stream of [child.stdout, child.stderr])
    stream.on('data', (chunk) => {
      output += chunk
    })
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })))
}

async function turn() {
  append({ type: 'turn/start', prompt: messages[0].content })
  for (;;) {
    const answer = await ask()
    append({ type: 'answer', answer })
    const toolCalls = answer.calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }))
    messages.push({
      role: 'assistant',
      content: answer.content,
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    })
    if (answer.calls.length === 0) break
    for (const call of answer.calls) {
      const result = await bash(JSON.parse(call.arguments).command)
      append({ type: 'tool/result', id: call.id, ...result })
      messages.push({ role: 'tool', tool_call_id: call.id, content: result.output })
    }
  }
}

turn()
  .catch((error) => {
    process.stderr.write(`minimal turn: ${error.message}\n`)
    process.exitCode = 1
  })
  .finally(() => {
    agent.destroy()
    rmSync(folder, { recursive: true, force: true })
  })
