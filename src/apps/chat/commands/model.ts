// `/model <name>` checked at once against the server's `GET /models` (when it lists any), so a
// typo is refused now instead of failing the next turn; `/rewind` with no turn lists the turns
// whose file tools changed files.

import { listModels } from '../../../llm/openai/openai-adapter.js'
import type { SessionEvent, SessionEventMap } from '../../../session/types.js'
import { DOCTOR_TIMEOUT_MS, modelEndpoint } from '../../shared/doctor-checks.js'
import { type ChatHost, safe } from '../chat-host.js'
import { changeModelChoice } from '../model-choice.js'

/** Models shown in the refusal before `…`. */
const MODELS_SHOWN = 8

export async function changeModel(chat: ChatHost, name: string): Promise<void> {
  if (name !== '') {
    let models: string[] | undefined
    try {
      models = await listModels(modelEndpoint(chat.plan.config, name), AbortSignal.timeout(DOCTOR_TIMEOUT_MS))
    } catch (error) {
      // A server that cannot list its models (or is down) is no reason to refuse the name.
      const reason = (error instanceof Error ? error.message : String(error)).split(' — ')[0]
      chat.say(chat.colors.dim(`(not checked against the server's models: ${safe(reason ?? '')})`))
    }
    if (models !== undefined && models.length > 0 && !models.includes(name)) {
      const shown = models.slice(0, MODELS_SHOWN).join(', ') + (models.length > MODELS_SHOWN ? ', …' : '')
      chat.say(
        chat.colors.yellow(
          `unknown model ${safe(name)}: the server offers ${safe(shown)}; the model stays as it was`,
        ),
      )
      return
    }
  }
  chat.say(safe(changeModelChoice(chat.agent, chat.plan, 'model', name)))
  chat.refresh()
}

export interface ChangedTurn {
  turn: number
  prompt: string
  paths: string[]
}

/** The turns in which write/edit/multi_edit changed files, with their prompt and paths, oldest first. */
export function turnsThatChangedFiles(events: readonly SessionEvent[]): ChangedTurn[] {
  const prompts = new Map<number, string>()
  const turns = new Map<number, Set<string>>()
  let current: number | undefined
  for (const event of events) {
    if (event.type === 'turn/start') current = (event.data as { turn: number }).turn
    else if (event.type === 'user/message' && current !== undefined && !prompts.has(current)) {
      const data = event.data as SessionEventMap['user/message']
      if (data.origin === undefined || data.origin === 'user') prompts.set(current, data.text)
    } else if (event.type === 'file/change') {
      const change = event.data as SessionEventMap['file/change']
      const paths = turns.get(change.turn) ?? new Set<string>()
      paths.add(change.path)
      turns.set(change.turn, paths)
    }
  }
  return [...turns]
    .sort(([a], [b]) => a - b)
    .map(([turn, paths]) => ({ turn, prompt: prompts.get(turn) ?? '', paths: [...paths] }))
}

export function listRewindable(chat: ChatHost): void {
  const { colors } = chat
  const turns = turnsThatChangedFiles(chat.agent.session.events)
  if (turns.length === 0) {
    chat.say(
      colors.dim('no turn of this session changed files with the file tools (bash changes are not tracked)'),
    )
    return
  }
  for (const { turn, prompt, paths } of turns) {
    const first = prompt.split('\n')[0] ?? ''
    chat.say(`${String(turn).padStart(4)}  ${safe(first.length > 60 ? `${first.slice(0, 59)}…` : first)}`)
    const shown =
      paths.slice(0, 3).map(safe).join(', ') + (paths.length > 3 ? `, +${paths.length - 3} more` : '')
    chat.say(colors.dim(`      ${shown}`))
  }
  chat.say(colors.dim('/rewind <turn> restores the files changed in that turn and later'))
}
