// A long stored session for the web UI's load test and benchmark: complete turns of a
// prompt, a bash call with its result, and a markdown answer with code, written straight
// through the persistence backend.

import type { SessionPersistence } from '../../src/persistence/index.js'
import { SESSION_FORMAT_VERSION, type SessionEvent, type SessionId } from '../../src/session/types.js'

/** Writes a session of at least `eventCount` events (whole turns); resolves with its event count. */
export async function writeLargeSession(
  persistence: SessionPersistence,
  id: SessionId,
  cwd: string,
  eventCount: number,
): Promise<number> {
  const start = Date.now() - eventCount * 1000
  await persistence.create({ version: SESSION_FORMAT_VERSION, id, createdAt: start, cwd, delegationDepth: 0 })
  const events: SessionEvent[] = []
  const push = (type: string, data: unknown) =>
    events.push({ seq: events.length, type, time: start + events.length * 1000, data })
  for (let turn = 1; events.length < eventCount; turn++) {
    const callId = `call_${turn}`
    push('turn/start', { turn })
    push('user/message', { text: `question ${turn}: what is in the folder?` })
    push('step/start', { turn, step: 1 })
    push('assistant/message', {
      message: { content: '', reasoning: `I should list the folder (turn ${turn}).` },
      usage: { promptTokens: 1000 + turn, completionTokens: 50, totalTokens: 1050 + turn, cachedTokens: 900 },
    })
    push('tool/call', { callId, name: 'bash', arguments: JSON.stringify({ command: `ls -la # ${turn}` }) })
    push('tool/result', {
      callId,
      content: `total ${turn}\n${'-rw-r--r-- 1 me me 12 file.txt\n'.repeat(20)}[exit code: 0]`,
    })
    push('step/end', { turn, step: 1, finishReason: 'tool_calls' })
    push('step/start', { turn, step: 2 })
    push('assistant/message', {
      message: { content: `Answer ${turn}: the folder has **20 files**.\n\n\`\`\`bash\nls -la\n\`\`\`` },
      usage: {
        promptTokens: 1100 + turn,
        completionTokens: 30,
        totalTokens: 1130 + turn,
        cachedTokens: 1000,
      },
    })
    push('step/end', { turn, step: 2, finishReason: 'stop' })
    push('turn/end', { turn, reason: 'completed' })
  }
  for (let index = 0; index < events.length; index += 1000)
    await persistence.append(id, events.slice(index, index + 1000))
  await persistence.release(id)
  return events.length
}
