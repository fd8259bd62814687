// `/lsp` in chat: the language servers this session started, their roots, state and last error.

import { formatStatusLines } from '../../lsp/index.js'
import type { TerminalChat } from './chat.js'
import { safe } from './chat.js'

export function describeLsp(chat: TerminalChat): void {
  const lsp = chat.harness.ctx.get('lsp')
  if (!lsp) {
    chat.say(chat.colors.dim('code intelligence is off (config lsp: false)'))
    return
  }
  for (const line of formatStatusLines(lsp.status())) chat.say(safe(line))
}
