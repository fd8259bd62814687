// `/doctor` in chat: the same checks as `dsh doctor`, for this session's model and folder.

import { formatCheck, runDoctorChecks } from '../../shared/doctor-checks.js'
import { type ChatHost, safe } from '../chat-host.js'
import { currentModel } from '../model-choice.js'

export async function doctor(chat: ChatHost): Promise<void> {
  chat.say(chat.colors.dim('checking…'))
  const checks = await runDoctorChecks(chat.plan.config, chat.agent.cwd, {
    model: currentModel(chat.agent, chat.plan),
  })
  for (const check of checks) chat.say(formatCheck(check, chat.colors, safe))
  const problems = checks.filter((check) => check.status === 'problem').length
  chat.say(
    problems === 0
      ? chat.colors.green('no problems found')
      : chat.colors.red(`${problems} problem${problems === 1 ? '' : 's'} found`),
  )
}
