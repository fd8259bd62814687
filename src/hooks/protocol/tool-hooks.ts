// Tool events: PreToolUse (before any permission check: deny, ask, allow, updatedInput),
// PermissionRequest and permission Notifications (where dsh asks the user), PostToolUse
// for calls that succeeded and PostToolUseFailure for calls that failed.

import type { PostExecuteState, ToolCallInfo, ToolOutput } from '../../plugin-api/index.js'
import type { HookFacts } from './dialect.js'
import { HookErrorCode } from './errors.js'
import type { BridgeRuntime } from './runtime.js'
import { rewriteToolInput } from './tool-shape.js'
import type { MergedOutcome } from './types.js'

export function attachToolHooks(runtime: BridgeRuntime): void {
  const { ctx, dialect, services, notify } = runtime
  const addContext = (call: ToolCallInfo, event: string, texts: readonly string[]) => {
    for (const text of texts)
      call.agent.session.append('context/added', { source: `${dialect.name}/${event}`, text })
  }

  /** Replaces the call's input with a hook's `updatedInput`; answers the problem when it is not valid for the tool. */
  const applyUpdatedInput = (
    call: ToolCallInfo,
    event: string,
    outcome: MergedOutcome,
  ): string | undefined => {
    if (outcome.updatedInput === undefined) return undefined
    if (outcome.updatedInputCount > 1)
      runtime.warn(
        `${outcome.updatedInputCount} ${event} hooks rewrote the input of ${call.name}; the last in configuration order wins`,
        HookErrorCode.BadOutput,
      )
    const shape = services.toolShape(call.name)
    const rewrite = rewriteToolInput(shape, outcome.updatedInput, call.name, ctx.get('tools'))
    if (!rewrite.ok)
      return `a ${dialect.name} ${event} hook rewrote the input of ${shape.name} into something the tool refuses (${rewrite.problem})`
    call.input = rewrite.input
    call.arguments = JSON.stringify(rewrite.input)
    return undefined
  }

  type Refusal = { kind: 'deny'; reason: string }

  /** The context and stop request of a PreToolUse outcome taken; a deny when it refuses the call. */
  const refusalOf = (call: ToolCallInfo, facts: HookFacts, outcome: MergedOutcome): Refusal | undefined => {
    addContext(call, 'PreToolUse', outcome.context)
    runtime.requestStop(call.agent, outcome)
    if (outcome.decision === 'deny' || outcome.stop) {
      // `continue: false` with no stopReason carries '': the model still gets a reason.
      const reason = outcome.reason || outcome.stop?.reason || 'denied by a PreToolUse hook'
      return { kind: 'deny', reason: dialect.denyMessage(reason, facts, services) }
    }
    if (outcome.decision === 'ask' && !dialect.canAsk) {
      // Codex rejects `ask` from PreToolUse as unsupported; dsh will not run the call unasked.
      const reason = `a ${dialect.name} PreToolUse hook answered "ask", which ${dialect.name} hooks cannot do, so the call was denied${outcome.reason ? `: ${outcome.reason}` : ''}`
      notify(reason)
      return { kind: 'deny', reason: dialect.denyMessage(reason, facts, services) }
    }
    return undefined
  }

  /**
   * A call that runs shell commands another way (`terminal_start`, a line sent to a shell
   * with `terminal_send`) goes to PreToolUse hooks a second time, as the Bash call it amounts
   * to (the tool's permission view): a guard written for Claude Code's or Codex's Bash must
   * see every command the model runs. Such a hook can deny or ask; its `updatedInput` cannot
   * be applied to a terminal, so a rewrite denies the call.
   */
  const fireAsBash = async (call: ToolCallInfo): Promise<Refusal | MergedOutcome | undefined> => {
    const view = bashViewOf(call)
    if (view === undefined) return undefined
    const facts: HookFacts = { ...toolFacts(call), tool: { name: 'bash', callId: call.callId, input: view } }
    const outcome = await runtime.fire('PreToolUse', facts)
    const refused = refusalOf(call, facts, outcome)
    if (refused) return refused
    if (outcome.updatedInput !== undefined) {
      const reason = `a ${dialect.name} PreToolUse hook rewrote the command ${call.name} would run; dsh cannot rewrite a terminal's command, so the call was denied (run it with the bash tool)`
      notify(reason)
      return { kind: 'deny', reason }
    }
    return outcome
  }

  /** The Bash command a non-bash call amounts to, as permission rules see it; undefined when none. */
  const bashViewOf = (call: ToolCallInfo): Record<string, unknown> | undefined => {
    if (call.name === 'bash') return undefined
    const input =
      call.input !== null && typeof call.input === 'object' ? (call.input as Record<string, unknown>) : {}
    try {
      const view = ctx.get('tools')?.get(call.name)?.permissionSubject?.(input, call.agent)
      return view?.tool === 'Bash' ? { ...view.input } : undefined
    } catch {
      // The permission policy denies a call whose view cannot be worked out.
      return undefined
    }
  }

  // Prepended: hooks decide before permission rules and modes, as Claude Code documents.
  ctx.on(
    'tools/pre-execute',
    async (call, next) => {
      const facts = toolFacts(call)
      const outcome = await runtime.fire('PreToolUse', facts)
      const refused = refusalOf(call, facts, outcome)
      if (refused) return refused
      const problem = applyUpdatedInput(call, 'PreToolUse', outcome)
      if (problem !== undefined) {
        notify(problem)
        return { kind: 'deny', reason: problem }
      }
      // After any rewrite: the command that would run.
      const asBash = await fireAsBash(call)
      if (asBash && 'kind' in asBash) return asBash
      const downstream = await next()
      if (downstream.kind === 'deny') return downstream
      if (outcome.decision === 'ask')
        return { kind: 'ask', reason: outcome.reason ?? 'a PreToolUse hook asks for approval' }
      if (asBash?.decision === 'ask')
        return { kind: 'ask', reason: asBash.reason ?? 'a PreToolUse hook asks for approval' }
      return downstream
    },
    { prepend: true },
  )

  // Where dsh would ask the user: PermissionRequest hooks may answer first; otherwise a
  // permission_prompt Notification goes out while the user is asked. A refusal is
  // `{ feedback: '' }`, not `false`: `serial` passes `false` on to the next listener (the
  // user), while any object ends the chain, and empty feedback reads as a plain "no".
  if (runtime.config.interactive) {
    ctx.on(
      'tools/approve',
      async (call) => {
        const facts = toolFacts(call)
        const outcome = await runtime.fire('PermissionRequest', facts)
        if (outcome.decision === 'deny') {
          if (outcome.reason) notify(`PermissionRequest hook denied ${call.name}: ${outcome.reason}`)
          return REFUSED
        }
        if (outcome.decision === 'allow') {
          const problem = applyUpdatedInput(call, 'PermissionRequest', outcome)
          if (problem === undefined) return true
          notify(problem)
          return REFUSED
        }
        const name = services.toolShape(call.name).name
        void runtime.fire('Notification', {
          agent: call.agent,
          turn: call.turn,
          signal: call.signal,
          notification: {
            type: 'permission_prompt',
            message: `dsh needs your permission to use ${name}`,
            title: 'Permission needed',
          },
        })
        return undefined
      },
      { prepend: true },
    )
  }

  ctx.on('tools/post-execute', async (state: PostExecuteState) => {
    // PostToolUse only for tools that ran: a call any hook, rule or user denied never did.
    if (!state.executed) return
    const { agent } = state.call
    const failure = failureOf(state.output)
    const facts: HookFacts = {
      ...toolFacts(state.call),
      tool: { ...toolFacts(state.call).tool!, output: state.output },
    }
    if (failure) {
      const outcome = await runtime.fire('PostToolUseFailure', { ...facts, ...failure })
      state.context.push(...outcome.context)
      runtime.requestStop(agent, outcome)
      return
    }
    const outcome = await runtime.fire('PostToolUse', facts)
    if (outcome.decision === 'deny')
      state.feedback.push(`PostToolUse hook feedback:\n${outcome.reason ?? 'blocked'}`)
    state.context.push(...outcome.context)
    runtime.requestStop(agent, outcome)
  })
}

const REFUSED = { feedback: '' } as const

function toolFacts(call: ToolCallInfo): HookFacts {
  return {
    agent: call.agent,
    turn: call.turn,
    tool: { name: call.name, callId: call.callId, input: call.input },
    signal: call.signal,
  }
}

/**
 * A call failed when the tool says so, or (bash) when the command exited non-zero or was
 * interrupted — as Claude Code's Bash tool reports such a command as an error.
 */
export function failureOf(output: ToolOutput): { error: string; interrupted: boolean } | undefined {
  const details = output.details
  const interrupted = details?.interrupted === true
  if (output.isError) return { error: output.content, interrupted }
  const exitCode = details?.exitCode
  if (typeof exitCode === 'number' && exitCode !== 0) {
    const stderr = typeof details?.stderr === 'string' ? details.stderr.trim() : ''
    return { error: `Exit code ${exitCode}${stderr ? `\n${stderr}` : ''}`, interrupted }
  }
  if (interrupted) return { error: 'interrupted', interrupted }
  return undefined
}
