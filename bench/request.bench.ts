// Request build: the time to build the next request of a 500-step session (history
// derived from the log, then encoded as JSON text) against `JSON.stringify` of the same
// body, so a long session's requests stay linear in its size.

import { buildModelRequest } from '../src/agent/request.js'
import { buildChatRequest, encodeChatRequest } from '../src/llm/openai/request.js'
import { Session } from '../src/session/session.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const STEPS = 500
const SAMPLES = 41
const TARGET_RATIO = 1.5
const DEFAULTS = { model: 'deepseek-flash', maxTokens: 131_072 }

export default async function run(): Promise<BenchRow[]> {
  const session = buildSession()
  const signal = new AbortController().signal
  // Request N-1 was built before request N, as in a live session.
  encodeChatRequest(buildModelRequest(session, {}, signal), DEFAULTS)
  const times = { build: [] as number[], stringify: [] as number[] }
  let bytes = 0
  for (let sample = 0; sample < SAMPLES; sample++) {
    // The model answered and a tool ran: one more step, then the next request.
    appendStep(session, STEPS + sample + 1)
    let started = performance.now()
    const text = encodeChatRequest(buildModelRequest(session, {}, signal), DEFAULTS)
    times.build.push(performance.now() - started)
    const body = buildChatRequest(buildModelRequest(session, {}, signal), DEFAULTS)
    started = performance.now()
    const baseline = JSON.stringify(body)
    times.stringify.push(performance.now() - started)
    if (text !== baseline)
      throw new Error('the encoded request differs from JSON.stringify of the built body')
    bytes = baseline.length
  }
  const built = median(times.build)
  const baseline = median(times.stringify)
  const ratio = built / baseline
  return [
    {
      name: `request build, request N of a ${STEPS}-step session (${(bytes / 1e6).toFixed(1)} MB, median of ${SAMPLES})`,
      measured: `${built.toFixed(2)} ms`,
      baseline: `${baseline.toFixed(2)} ms JSON.stringify of the body`,
      ratio,
      target: `≤ ${TARGET_RATIO}× JSON.stringify`,
      pass: ratio <= TARGET_RATIO,
    },
  ]
}

/** A session log of STEPS tool-calling steps with reasoning, as the loop writes it. */
function buildSession(): Session {
  const session = new Session({ version: 1, id: 'bench', createdAt: 0, delegationDepth: 0 })
  session.append('turn/start', { turn: 1 })
  session.append('user/message', { text: 'Refactor the parser and keep the tests green.' })
  session.append('request/config', {
    model: 'deepseek-flash',
    effort: 'high',
    system: 'You are dsh, a coding agent. '.repeat(20),
    tools: [{ name: 'bash', description: 'Runs a command.', parameters: { type: 'object' } }],
  })
  for (let step = 1; step <= STEPS; step++) appendStep(session, step)
  return session
}

/** One tool-calling step with reasoning, as the loop logs it. */
function appendStep(session: Session, step: number): void {
  session.append('step/start', { turn: 1, step })
  session.append('assistant/message', {
    message: {
      content: `Step ${step}: checking the next file.`,
      reasoning: `I looked at the output of step ${step - 1}; next I should read file ${step}. `.repeat(4),
    },
    usage: { promptTokens: 1000 * step, completionTokens: 200, totalTokens: 1000 * step + 200 },
  })
  session.append('tool/call', {
    callId: `call_${step}`,
    name: 'bash',
    arguments: JSON.stringify({ command: `sed -n 1,80p src/file-${step}.ts` }),
  })
  session.append('tool/result', { callId: `call_${step}`, content: `line of output ${step}\n`.repeat(40) })
  session.append('step/end', { turn: 1, step, finishReason: 'tool_calls' })
}
