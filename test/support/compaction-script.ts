// A scripted model for context tests: each prompt gets `calls` bash calls that print long
// outputs, then an answer; a summary request (dsh's compaction call) gets a summary. It
// reacts to the request, so compactions may come at any step.

import type { ScriptRequest, ScriptStep } from '../../src/llm/index.js'

/** Words of dsh's summary request (src/context/summary-prompt.ts). */
export const SUMMARY_REQUEST_MARK = 'is about to be replaced by a summary'
/** Words of the message that carries a summary (src/session/compaction-messages.ts). */
export const SUMMARY_MESSAGE_MARK = 'This session continues an earlier conversation'

export function isSummaryRequest(request: ScriptRequest): boolean {
  const last = request.messages.at(-1)
  return last?.role === 'user' && last.content.includes(SUMMARY_REQUEST_MARK)
}

/** The prompt of the turn a request belongs to: the last user message that is not dsh's own. */
export function turnPrompt(request: ScriptRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!
    if (message.role !== 'user') continue
    if (message.content.includes(SUMMARY_MESSAGE_MARK) || message.content.includes(SUMMARY_REQUEST_MARK))
      continue
    return message.content
  }
  return ''
}

export interface WorkScriptOptions {
  /** Bash calls per prompt. */
  calls: number
  /** Lines each call prints (about 30 characters a line). */
  lines: number
  /** How many requests the script answers in all. Default 400. */
  steps?: number
}

export interface WorkScript {
  script: ScriptStep[]
  /** The summary requests seen, in order. */
  summaryRequests: ScriptRequest[]
  /** Every request seen, in order. */
  requests: ScriptRequest[]
}

/** The bash command of call `n` of a prompt: `lines` numbered lines. */
export function workCommand(n: number, lines: number): string {
  return `for i in $(seq 1 ${lines}); do printf 'call %02d line %05d of the output\\n' ${n} "$i"; done`
}

export function workScript(options: WorkScriptOptions): WorkScript {
  const done = new Map<string, number>()
  const summaryRequests: ScriptRequest[] = []
  const requests: ScriptRequest[] = []
  const step: ScriptStep = (request) => {
    requests.push(request)
    if (isSummaryRequest(request)) {
      summaryRequests.push(request)
      return {
        reasoning: 'Summarising what was done.',
        text: `1. Task: ${turnPrompt(request)}\n2. Decisions: none\n6. Next steps: continue the calls (${summaryRequests.length} summaries so far).`,
      }
    }
    const prompt = turnPrompt(request)
    const count = done.get(prompt) ?? 0
    if (count >= options.calls)
      return { reasoning: `All ${count} calls are done.`, text: `finished: ${prompt}` }
    done.set(prompt, count + 1)
    return {
      reasoning: `Running call ${count + 1} for ${prompt}.`,
      // Ids unique across servers: a resumed session's log holds the earlier ones too.
      toolCalls: [
        {
          id: `call_${prompt.replace(/\W+/g, '_')}_${count + 1}`,
          name: 'bash',
          arguments: { command: workCommand(count + 1, options.lines) },
        },
      ],
    }
  }
  return { script: Array.from({ length: options.steps ?? 400 }, () => step), summaryRequests, requests }
}
