// The script the built-in demo model plays: it runs bash to show the managed DSH_*
// variables and the live transcript, writes and runs a small program, then answers
// with a summary built from the real tool results it received.

import type { Script, ScriptRequest } from '../../llm/scripted/script.js'

export interface DemoScriptOptions {
  /** How `node` is invoked from bash (a bare `node` when it is on PATH). */
  nodeCommand: string
  /** Pause before each streamed chunk, so the answer visibly streams. */
  delayMs?: number
}

const COUNT_EVENTS_JS = `// Reads this session's own transcript while the turn is still running.
const fs = require('fs')
const lines = fs.readFileSync(process.env.DSH_SESSION_JSONL, 'utf8').trim().split('\\n')
const types = lines.slice(1).map((line) => JSON.parse(line).type)
console.log(types.length + ' events on disk so far: ' + [...new Set(types)].join(', '))
`

export function demoScript(options: DemoScriptOptions): Script {
  const delayMs = options.delayMs ?? 0
  return [
    {
      delayMs,
      reasoning: 'The user wants to see how I work. I will start with the managed variables of this call.',
      text: 'First, which session am I, and where is it being written? Every bash call gets its own `DSH_*` snapshot.',
      toolCalls: [
        {
          name: 'bash',
          arguments: {
            command: "env | grep '^DSH_' | sort; pwd",
            description: 'Show the managed DSH_* variables',
          },
        },
      ],
    },
    {
      delayMs,
      reasoning: 'Next, a program that reads the transcript while the turn is running.',
      text: 'Now a small program, written and run in this folder, that reads the transcript of this very session.',
      toolCalls: [
        {
          name: 'bash',
          arguments: {
            command: `cat > count-events.js <<'EOF'\n${COUNT_EVENTS_JS}EOF\n${options.nodeCommand} count-events.js`,
            description: 'Write and run count-events.js',
          },
        },
      ],
    },
    (request) => ({ delayMs, reasoning: 'Both commands ran; time to sum up.', text: summary(request) }),
  ]
}

/** The final answer, quoting what the two bash calls really printed. */
function summary(request: ScriptRequest): string {
  const results = request.messages
    .filter((message) => message.role === 'tool')
    .map((message) => message.content)
  const env = results[0] ?? ''
  const sessionId = /DSH_SESSION_ID=(.*)/.exec(env)?.[1]?.trim() || '(not set)'
  const transcript = /DSH_SESSION_JSONL=(.*)/.exec(env)?.[1]?.trim() || '(no dedicated file)'
  const counted =
    (results[1] ?? '').split('\n').find((line) => line.includes('events on disk')) ?? results[1] ?? ''
  return [
    'Done. Here is what just happened:',
    '',
    `- I ran as session \`${sessionId}\`. The agent, its session and every shell call share that one id.`,
    `- The session is an append-only JSONL log at \`${transcript}\`, handed to each command as \`$DSH_SESSION_JSONL\`.`,
    `- \`count-events.js\` read that log mid-turn: ${counted.trim() || 'it printed nothing'}. The harness makes the log durable before every model request and tool call.`,
    '',
    'Everything you saw came from a real HTTP model server on 127.0.0.1 playing a script — the same path a real DeepSeek request takes.',
  ].join('\n')
}
