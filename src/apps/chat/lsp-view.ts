// `/lsp` in chat: the language servers this session started, their roots, state and last error.

import { formatStatusLines } from '../../lsp/index.js'
import { type ChatHost, safe } from './chat-host.js'

export function describeLsp(chat: ChatHost): void {
  const lsp = chat.harness.ctx.get('lsp')
  if (!lsp) {
    chat.say(chat.colors.dim('code intelligence is off (config lsp: false)'))
    return
  }
  for (const line of formatStatusLines(lsp.status())) chat.say(safe(line))
}
