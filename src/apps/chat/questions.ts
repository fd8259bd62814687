// The chat's two questions, drawn in place of the input: whether a tool call may run, and
// whether a project folder may bring its own configuration. Approval offers what Claude
// Code offers: 1 yes; 2 yes, and don't ask again (an allow rule for this command prefix or
// tool, saved in the project's .claude/settings.local.json); 3 no, and tell the model what
// to do instead (typed here, sent back as the tool result). Any other key is no.

import { claudeCodeToolName } from '../../permissions/claude-code-tool-names.js'
import { suggestedAllowRule } from '../../permissions/index.js'
import type { ApprovalAnswer, ToolCallInfo } from '../../plugin-api/index.js'
import type { Colors } from '../shared/render.js'
import { approvalLines } from './approval-view.js'
import { safe } from './chat-host.js'
import { withoutLastGrapheme } from './graphemes.js'
import type { KeyPress } from './input.js'
import { type PickerSource, ResumePicker } from './resume-picker.js'

interface Approval {
  call: ToolCallInfo
  reason: string
  /** The allow rule choice 2 saves, when one can be narrow enough. */
  rule: string | undefined
  /** Set while the user types what the model should do instead (choice 3). */
  feedback: string | undefined
  answer(answer: ApprovalAnswer, rule?: string): void
}

interface TrustQuestion {
  folder: string
  brings: readonly string[]
  answer(trusted: boolean): void
}

export interface QuestionHooks {
  colors: Colors
  say(text: string): void
  schedule(): void
  /** Saves an allow rule for the call's agent; answers where it was written. */
  allowAlways(call: ToolCallInfo, rule: string): string
  /** Ctrl-C during a question: the chat interrupts the turn. */
  interrupt(): void
}

export class ChatQuestions {
  private approval: Approval | undefined
  private trust: TrustQuestion | undefined
  private picker: ResumePicker | undefined

  constructor(private readonly hooks: QuestionHooks) {}

  get pending(): boolean {
    return this.approval !== undefined || this.trust !== undefined || this.picker !== undefined
  }

  /** Opens the resume picker in place of the input; resolves with the chosen id, or undefined on Esc. */
  pickSession(source: PickerSource): Promise<string | undefined> {
    return new Promise((resolve) => {
      const picker: ResumePicker = new ResumePicker(source, this.hooks.colors, this.hooks.schedule, (id) => {
        if (this.picker !== picker) return
        this.picker = undefined
        this.hooks.schedule()
        resolve(id)
      })
      this.picker?.key({ name: 'escape' })
      this.picker = picker
      this.hooks.schedule()
    })
  }

  /** Denies and drops every open question (the chat is leaving). */
  cancel(): void {
    this.picker?.key({ name: 'escape' })
    this.approval?.answer(false)
    this.trust?.answer(false)
  }

  askTrust(folder: string, brings: readonly string[]): Promise<boolean> {
    const { colors } = this.hooks
    return new Promise((resolve) => {
      const answer = (trusted: boolean) => {
        if (this.trust?.answer !== answer) return
        this.trust = undefined
        this.hooks.say(
          `${colors.yellow('?')} trust ${safe(folder)} ${colors.dim(trusted ? '— trusted (remembered)' : '— not trusted')}`,
        )
        this.hooks.schedule()
        resolve(trusted)
      }
      this.trust = { folder, brings, answer }
      this.hooks.schedule()
    })
  }

  /** Asks whether a tool call may run; a cancelled turn denies. */
  askApproval(call: ToolCallInfo, reason: string): Promise<ApprovalAnswer> {
    const { colors } = this.hooks
    return new Promise((resolve) => {
      const onAbort = () => answer(false)
      const answer = (given: ApprovalAnswer, rule?: string) => {
        if (this.approval?.call !== call) return
        this.approval = undefined
        call.signal.removeEventListener('abort', onAbort)
        const how =
          given === true
            ? rule !== undefined
              ? `— allowed, and from now on: ${rule}`
              : '— allowed'
            : typeof given === 'object' && given !== null
              ? `— denied: ${given.feedback}`
              : '— denied'
        this.hooks.say(
          `${colors.yellow('?')} ${colors.bold(call.name)} ${safe(commandOf(call))} ${colors.dim(safe(how))}`,
        )
        this.hooks.schedule()
        resolve(given)
      }
      if (call.signal.aborted) return resolve(false)
      call.signal.addEventListener('abort', onAbort, { once: true })
      const rule = suggestedAllowRule(claudeCodeToolName(call.name), call.input)
      this.approval = { call, reason, rule, feedback: undefined, answer }
      this.hooks.schedule()
    })
  }

  /** Handles a key while a question is open; false when none is. */
  key(key: KeyPress): boolean {
    if (this.trust) {
      // Only `y` trusts; Ctrl-C or any other key is no (asked again in a later session).
      this.trust.answer(key.name === 'y' && !key.ctrl)
      return true
    }
    const approval = this.approval
    if (!approval) return this.picker?.key(key) ?? false
    if (key.ctrl && key.name === 'c') {
      approval.answer(false)
      this.hooks.interrupt()
    } else if (approval.feedback !== undefined) this.feedbackKey(key, approval)
    else if (key.name === 'y' || key.sequence === '1') approval.answer(true)
    else if ((key.name === 'a' || key.sequence === '2') && approval.rule !== undefined) {
      try {
        const path = this.hooks.allowAlways(approval.call, approval.rule)
        approval.answer(true, `${approval.rule} (saved in ${path})`)
      } catch (error) {
        this.hooks.say(this.hooks.colors.red(safe((error as Error).message)))
        approval.answer(true)
      }
    } else if (key.sequence === '3') {
      approval.feedback = ''
      this.hooks.schedule()
    } else approval.answer(false)
    return true
  }

  private feedbackKey(key: KeyPress, approval: Approval): void {
    const text = approval.feedback ?? ''
    if (key.name === 'return' || key.name === 'enter') {
      approval.answer(text.trim() === '' ? false : { feedback: text.trim() })
      return
    }
    if (key.name === 'escape') approval.answer(false)
    else if (key.name === 'backspace') approval.feedback = withoutLastGrapheme(text)
    else if (key.paste !== undefined) approval.feedback = text + key.paste.replace(/\s*\n\s*/g, ' ')
    else if (key.sequence !== undefined && !key.ctrl && !key.meta && isPrintable(key.sequence))
      approval.feedback = text + key.sequence
    this.hooks.schedule()
  }

  /** The question's lines and the cursor row (an index into them) and column; undefined when none. */
  frame(): { lines: string[]; row: number; column: number } | undefined {
    const { colors } = this.hooks
    if (this.picker && !this.trust && !this.approval) return this.picker.frame()
    if (this.trust) {
      const { folder, brings } = this.trust
      const lines = [
        `${colors.yellow('?')} ${colors.bold(safe(folder))} brings its own configuration:`,
        `    ${safe(brings.length > 0 ? brings.join(', ') : 'project files')}`,
        `  ${colors.dim('These can run commands on your machine. Trust only folders whose files you have read.')}`,
        `  trust this folder? ${colors.dim('[y/N]')} `,
      ]
      return { lines, row: lines.length - 1, column: 27 }
    }
    if (!this.approval) return undefined
    const { call, reason, rule, feedback } = this.approval
    const lines = [`${colors.yellow('?')} ${colors.bold(call.name)} wants to run:`]
    for (const line of approvalLines(call.name, call.input, call.arguments, colors)) lines.push(`    ${line}`)
    lines.push(`  ${colors.dim(safe(reason))}`)
    if (feedback !== undefined) {
      const typed = safe(feedback)
      lines.push(`  ${colors.dim('tell the model what to do instead (Enter sends, Esc just denies):')}`)
      lines.push(`  > ${typed}`)
      return { lines, row: lines.length - 1, column: 4 + typed.length }
    }
    lines.push(`    ${colors.bold('1')} yes`)
    if (rule !== undefined)
      lines.push(`    ${colors.bold('2')} yes, and don't ask again for ${safe(rule)} in this project`)
    lines.push(`    ${colors.bold('3')} no, and tell the model what to do instead`)
    lines.push(`  allow? ${colors.dim('[y/N]')} `)
    return { lines, row: lines.length - 1, column: 15 }
  }
}

/** The exact command (bash) or the arguments a tool call carries. */
function commandOf(call: ToolCallInfo): string {
  const input = call.input as { command?: unknown } | undefined
  return typeof input?.command === 'string' ? input.command : call.arguments
}

/** No control characters: what a typed key may add to the feedback line. */
function isPrintable(text: string): boolean {
  return [...text].every((char) => char.charCodeAt(0) >= 0x20 && char.charCodeAt(0) !== 0x7f)
}
