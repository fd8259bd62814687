// Edit feedback: after edit, multi_edit and write, the changed file goes to its language
// server and the errors that are new (not there before the edit) join the tool result.

import { readFile } from 'node:fs/promises'
import type { Context } from 'cordis'
import type { PostExecuteState } from '../plugin-api/index.js'
import { realOrSelf, resolveToolPath } from '../tools/fs/index.js'
import { bounded, diagnosticLine, displayOf, sortDiagnostics } from './format.js'
import { serverFor } from './roots.js'
import type { LspService } from './service.js'

export const EDIT_TOOLS: ReadonlySet<string> = new Set(['edit', 'multi_edit', 'write'])
export const MAX_FEEDBACK_ERRORS = 20
export const MAX_OTHER_FILE_ERRORS = 10

/** Registers the pre/post-execute listeners (effects of the calling plugin). */
export function registerEditFeedback(ctx: Context, lsp: () => LspService | undefined): void {
  // The file's text before the edit, by call: the server must know the old errors to tell new ones.
  const before = new Map<string, string | undefined>()
  ctx.on('tools/pre-execute', async (call, next) => {
    const service = lsp()
    const path = editedPath(call.name, call.input, call.agent.cwd)
    if (service?.settings.feedback && path && serverFor(service.manager.specs, path))
      before.set(call.callId, await readFile(path, 'utf8').catch(() => undefined))
    return next()
  })
  ctx.on('tools/post-execute', async (state) => {
    const had = before.has(state.call.callId)
    const old = before.get(state.call.callId)
    before.delete(state.call.callId)
    const service = lsp()
    if (!had || !service || !state.executed || state.output.isError) return
    const text = await feedbackFor(service, state, old)
    if (text) state.feedback.push(text)
  })
}

async function feedbackFor(
  service: LspService,
  state: PostExecuteState,
  old: string | undefined,
): Promise<string> {
  const cwd = state.call.agent.cwd
  const path = editedPath(state.call.name, state.call.input, cwd)
  if (!path) return ''
  let after: string
  try {
    after = await readFile(path, 'utf8')
  } catch {
    return '' // Gone or unreadable again: nothing to check.
  }
  let answer: Awaited<ReturnType<LspService['afterEdit']>>
  try {
    answer = await service.afterEdit(path, cwd, old, after, state.call.signal)
  } catch {
    return '' // A server fault never fails the edit; the status and log show it.
  }
  if (!answer.ok) return answer.repeated ? '' : `LSP: ${answer.note}`
  const notes = answer.notes.map((note) => `LSP: ${note}`)
  const errors = sortDiagnostics(answer.value.file.filter((d) => d.severity === 'error'))
  const others = sortDiagnostics(answer.value.others)
  const lines: string[] = [...notes]
  if (errors.length > 0) {
    lines.push(`LSP: ${errors.length} new error${errors.length === 1 ? '' : 's'} in ${displayOf(cwd, path)}:`)
    lines.push(...bounded(errors, MAX_FEEDBACK_ERRORS, (d) => diagnosticLine(cwd, d)))
  }
  if (others.length > 0) {
    lines.push(`LSP: ${others.length} new error${others.length === 1 ? '' : 's'} in other files:`)
    lines.push(...bounded(others, MAX_OTHER_FILE_ERRORS, (d) => diagnosticLine(cwd, d)))
  }
  return lines.join('\n')
}

/** The real path an edit tool call writes, from its arguments; undefined for other tools. */
function editedPath(tool: string, input: unknown, cwd: string): string | undefined {
  if (!EDIT_TOOLS.has(tool)) return undefined
  const path = (input as { file_path?: unknown } | undefined)?.file_path
  return typeof path === 'string' && path !== '' ? realOrSelf(resolveToolPath(cwd, path).absolute) : undefined
}
