// The `subagent` tool: spawns an in-process child agent with its own session id,
// lineage to the parent, and the parent's cwd; the child's final answer is the result.

import { randomUUID } from 'node:crypto'
import type { Context } from 'cordis'
import * as z from 'zod'
import { toolParameters } from '../../core/tool-parameters.js'
import type { AgentHandle, ToolOutput, TurnResult } from '../../plugin-api/index.js'
import { SUBAGENT_ID_INFIX } from '../../session/id.js'
import { forkSeed } from '../../session/store.js'
import type { SessionId } from '../../session/types.js'
import { SUBAGENT_DESCRIPTION } from './prompt.js'

export interface SubagentToolConfig {
  /** Deepest delegation allowed: a top-level agent is depth 0, its child 1. Default 2. */
  maxDepth?: number
}

const subagentParameters = toolParameters('subagent', () =>
  z.object({
    description: z.string().describe('A short (3-7 word) label for the task'),
    prompt: z.string().min(1).describe('The complete task for the sub-agent'),
    fork: z.boolean().optional().describe("Start the sub-agent with this conversation's completed turns"),
  }),
)

export function mintSubagentId(parent: SessionId): SessionId {
  return `${parent}${SUBAGENT_ID_INFIX}${randomUUID()}`
}

export const subagentToolPlugin = {
  name: 'subagent-tool',
  inject: ['tools'],
  apply(ctx: Context, config: SubagentToolConfig = {}) {
    const maxDepth = config.maxDepth ?? 2
    ctx.tools.register({
      name: 'subagent',
      description: SUBAGENT_DESCRIPTION,
      get parameters() {
        return subagentParameters.schema()
      },
      parametersJsonSchema: subagentParameters.jsonSchema,
      // Claude Code's sub-agent tool is `Agent` (formerly `Task`): hooks match either.
      hookNames: { claudeCode: { name: 'Agent', aliases: ['Task'] } },
      async execute(args, execution): Promise<ToolOutput> {
        const parent = execution.agent
        const agents = ctx.get('agents')
        if (!parent || !agents) return { content: 'subagent needs a live parent agent', isError: true }
        const depth = parent.session.header.delegationDepth + 1
        if (depth > maxDepth) {
          return {
            content: `Delegation refused: depth ${depth} exceeds the maximum of ${maxDepth}.`,
            isError: true,
          }
        }
        // A fork's seed, as `dsh run --fork` makes it: the completed turns, then the marker that
        // keeps their usage the parent's.
        const seed = args.fork ? forkSeed(parent.session) : undefined
        const child = await agents.create({
          sessionId: mintSubagentId(parent.id),
          meta: { cwd: parent.cwd, parentSession: parent.id, origin: 'subagent', delegationDepth: depth },
          ...(seed && seed.length > 0 ? { seed } : {}),
          model: parent.model,
          signal: execution.signal,
        })
        let result: TurnResult | undefined
        const started = Date.now()
        const seeded = child.session.events.length
        try {
          await ctx.parallel('subagent/start', parent, child, { description: args.description })
          result = await child.prompt(args.prompt, { signal: execution.signal, origin: 'subagent' })
          await ctx.parallel('subagent/stop', parent, child, result)
        } finally {
          await agents.dispose(child.id)
        }
        const output = renderResult(child, result)
        if (output.isError) return output
        const toolUses = child.session.events
          .slice(seeded)
          .filter((event) => event.type === 'tool/call').length
        // Claude Code's Agent result, which its PostToolUse hooks get as `tool_response`.
        const hookResponse = {
          status: 'completed',
          prompt: args.prompt,
          agentId: child.id,
          content: [{ type: 'text', text: result.text }],
          totalDurationMs: Date.now() - started,
          totalToolUseCount: toolUses,
        }
        return { ...output, details: { hookResponse } }
      },
    })
  },
}

function renderResult(child: AgentHandle, result: TurnResult): ToolOutput {
  const header = `[sub-agent session ${child.id}]`
  if (result.reason === 'completed') return { content: `${header}\n${result.text || '(no answer)'}` }
  const why = result.error ? `: ${result.error}` : ''
  return {
    content: `${header}\nThe sub-agent stopped (${result.reason}${why}).\n${result.text}`.trimEnd(),
    isError: true,
  }
}
