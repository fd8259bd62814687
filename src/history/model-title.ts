// Titles the model writes (`titles: model`, or `auto` on DeepSeek's own API): a small side
// call on a new session's first prompt, made while the first step runs, so listings, search
// and the pickers say what the work was about. The title is a `session/title` event with
// `source: 'model'` and the call's usage (priced like any step); a title a person gave is
// never replaced, and a failed call leaves the first prompt as the title.

import type { Context } from 'cordis'
import type { AgentHandle } from '../agent/index.js'
import type { TitleSource } from '../config/index.js'
import { errorMessage } from '../core/errors.js'
import type { Usage } from '../llm/types.js'
import type { SessionEventMap, SessionId } from '../session/types.js'
import { titleFromReply, titleRequest } from './title-request.js'

/** How long a turn's end, or closing a session, waits for a title call still under way. */
export const TITLE_CLOSE_WAIT_MS = 10_000

/**
 * Whether the model writes titles: `model` always, `prompt` never, `auto` only against
 * DeepSeek's hosted API (a paid key: a local server is not asked for more work than the prompt).
 */
export function modelWritesTitles(source: TitleSource, endpoint: string): boolean {
  if (source !== 'auto') return source === 'model'
  try {
    return new URL(endpoint).hostname === 'api.deepseek.com'
  } catch {
    return false
  }
}

export interface ModelTitleConfig {
  /** Called when a title call fails (the session keeps its first prompt as the title). */
  onError?: (sessionId: SessionId, message: string) => void
}

interface PendingTitle {
  done: Promise<void>
  controller: AbortController
}

export const modelTitlePlugin = {
  name: 'model-title',
  apply(ctx: Context, config: ModelTitleConfig = {}) {
    const pending = new Map<SessionId, PendingTitle>()

    ctx.on('agent/pre-step', (state) => {
      // The first step of a new session's first turn: its prompt passed the hooks and is logged.
      if (state.turn !== 1 || state.step !== 1) return
      const { agent } = state
      if (pending.has(agent.id) || !wantsTitle(agent)) return
      const prompt = agent.session.last('user/message')?.data.text
      const llm = ctx.get('llm')
      if (!prompt?.trim() || !llm) return
      const controller = new AbortController()
      const model = agent.model.model ?? llm.defaultModel
      // The first turn ends with its title, so the turn's usage (the `dsh run` usage line, the
      // chat's cost) includes the side call; it usually finished long before the answer did.
      // Listened to only while the call is under way: a turn-stopping listener makes every
      // turn's end flush the log first (for Stop hooks), which other turns need not pay.
      const stopWaiting = ctx.on('agent/turn-stopping', async (state) => {
        const job = pending.get(agent.id)
        if (state.agent.id === agent.id && job) await settled(job, false)
      })
      const done = (async () => {
        let text = ''
        let usage: Usage | undefined
        for await (const chunk of llm.stream(titleRequest(prompt, model, controller.signal))) {
          if (chunk.type === 'text-delta') text += chunk.text
          else if (chunk.type === 'finish' && chunk.usage) usage = chunk.usage
        }
        const title = titleFromReply(text)
        // A person may have named it meanwhile (web UI, `sessions rename` is refused while live).
        if (title === undefined || !wantsTitle(agent)) return
        const data: SessionEventMap['session/title'] = { title, source: 'model', model }
        if (usage) data.usage = usage
        agent.session.append('session/title', data, { ignorable: true })
      })()
        .catch((error) => {
          if (!controller.signal.aborted) config.onError?.(agent.id, errorMessage(error))
        })
        .finally(() => {
          pending.delete(agent.id)
          stopWaiting()
        })
      pending.set(agent.id, { done, controller })
    })

    // A turn that ended otherwise (an error, Ctrl-C): the session closes after this, so a title
    // still on its way is waited for, within reason, then cancelled.
    ctx.on('agent/disposed', async (agent) => {
      const job = pending.get(agent.id)
      if (job) await settled(job, true)
    })

    ctx.effect(
      () => () => {
        for (const job of pending.values()) job.controller.abort()
      },
      'model-title: cancel title calls',
    )
  },
}

/** Waits for a title call, at most TITLE_CLOSE_WAIT_MS; then cancels it when `cancel`. */
async function settled(job: PendingTitle, cancel: boolean): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      if (cancel) job.controller.abort()
      resolve()
    }, TITLE_CLOSE_WAIT_MS)
  })
  try {
    await Promise.race([job.done, late])
  } finally {
    clearTimeout(timer)
  }
}

/** A top-level session with no title given past its seed. Sub-agents keep their task as the title. */
function wantsTitle(agent: AgentHandle): boolean {
  const { header, events } = agent.session
  if (header.origin === 'subagent' || header.parentSession !== undefined) return false
  const seedLength = header.seedLength ?? 0
  for (let i = events.length - 1; i >= seedLength; i--) if (events[i]!.type === 'session/title') return false
  return true
}
