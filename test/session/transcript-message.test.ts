// The Messages-shaped `message` a log line carries: a tool call's input is always an object,
// as in the Messages API and readers' schemas, also when the model's arguments were not one.

import { describe, expect, it } from 'vitest'
import { RAW_TOOL_INPUT_KEY, transcriptMessage } from '../../src/session/index.js'

const call = (args: string) =>
  transcriptMessage({ type: 'tool/call', data: { callId: 'c1', name: 'bash', arguments: args } })

describe('transcriptMessage', () => {
  it('gives a tool call the JSON object the model sent as its input', () => {
    expect(call('{"command":"echo hi"}')).toEqual({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'c1', name: 'bash', input: { command: 'echo hi' } }],
    })
  })

  it('keeps arguments that are not a JSON object as text inside an object', () => {
    for (const args of ['{"command": "echo hi"', '["a"]', '42', 'null', '']) {
      const message = call(args)!
      const block = message.content[0] as { input: unknown }
      expect(block.input, args).toEqual({ [RAW_TOOL_INPUT_KEY]: args })
    }
  })
})
