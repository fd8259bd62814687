// What the chat's `allow? [y/N]` question shows of a tool call: the command for bash, the
// file and the lines an edit or write would change, the URL of a fetch — the raw JSON only
// for tools it does not know. Every line is sanitized here (before colouring); the caller
// indents them.

import { toTerminalText } from '../../core/terminal-text.js'
import type { Colors } from '../shared/render.js'

/** Lines of old or new text shown per side before "… +N lines". */
export const APPROVAL_TEXT_LINES = 8
/** Lines of a plan `exit_plan_mode` presents before "… +N lines". */
export const APPROVAL_PLAN_LINES = 40

type Input = Record<string, unknown>

/** The lines shown under "<tool> wants to run:" for `name` called with `input`. */
export function approvalLines(name: string, input: unknown, rawArguments: string, colors: Colors): string[] {
  return plainLines(name, input, rawArguments, colors).map((line) =>
    typeof line === 'string' ? clean(line) : line.paint(clean(line.text)),
  )
}

type Line = string | { readonly text: string; readonly paint: (text: string) => string }

function clean(text: string): string {
  return toTerminalText(text, { keepTabs: false })
}

function plainLines(name: string, input: unknown, rawArguments: string, colors: Colors): Line[] {
  const args = typeof input === 'object' && input !== null ? (input as Input) : undefined
  if (!args) return rawArguments.split('\n')
  const text = (key: string) => (typeof args[key] === 'string' ? (args[key] as string) : undefined)
  switch (name) {
    case 'bash':
      if (text('command') !== undefined) return text('command')!.split('\n')
      break
    case 'write':
      if (text('file_path') !== undefined && text('content') !== undefined) {
        const content = text('content')!
        const count = content === '' ? 0 : content.replace(/\n$/, '').split('\n').length
        return [
          `${text('file_path')} (${count} ${count === 1 ? 'line' : 'lines'})`,
          ...side('+', content, colors.green),
        ]
      }
      break
    case 'edit':
      if (text('file_path') !== undefined && text('old_string') !== undefined) {
        return [
          `${text('file_path')}${args.replace_all === true ? ' (every occurrence)' : ''}`,
          ...side('-', text('old_string')!, colors.red),
          ...side('+', text('new_string') ?? '', colors.green),
        ]
      }
      break
    case 'multi_edit':
      if (text('file_path') !== undefined && Array.isArray(args.edits)) {
        const edits = args.edits.filter((edit): edit is Input => typeof edit === 'object' && edit !== null)
        return [
          `${text('file_path')} (${edits.length} ${edits.length === 1 ? 'edit' : 'edits'})`,
          ...edits.flatMap((edit) => [
            ...side('-', String(edit.old_string ?? ''), colors.red),
            ...side('+', String(edit.new_string ?? ''), colors.green),
          ]),
        ]
      }
      break
    case 'exit_plan_mode':
      if (text('plan') !== undefined) {
        const plan = text('plan')!.replace(/\n$/, '').split('\n')
        const shown = plan.slice(0, APPROVAL_PLAN_LINES)
        return [
          'leave plan mode and carry out this plan:',
          ...shown.map((line) => `  ${line}`),
          ...(plan.length > shown.length ? [`  … +${plan.length - shown.length} lines`] : []),
        ]
      }
      break
    case 'web_fetch':
      if (text('url') !== undefined) return [text('url')!]
      break
  }
  return rawArguments.split('\n')
}

/** One side of a change: its lines prefixed with `mark`, cut after a few. */
function side(mark: '+' | '-', text: string, paint: (line: string) => string): Line[] {
  if (text === '') return []
  const lines = text.replace(/\n$/, '').split('\n')
  const shown: Line[] = lines
    .slice(0, APPROVAL_TEXT_LINES)
    .map((line) => ({ text: `${mark} ${line}`, paint }))
  if (lines.length > shown.length) shown.push(`  … +${lines.length - shown.length} lines`)
  return shown
}
