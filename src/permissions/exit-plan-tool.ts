// The `exit_plan_mode` tool (Claude Code's ExitPlanMode): in plan mode the model hands its
// plan to the user, who decides whether to leave plan mode. The decision itself is the
// permission check's `ask` (src/permissions/policy.ts); reaching `execute` means a yes.

import type { Context } from 'cordis'
import * as z from 'zod'
import { type SchemaOf, toolParameters } from '../core/tool-parameters.js'
import type { ToolDefinition } from '../plugin-api/index.js'
import type { PermissionPolicy } from './plugin.js'
import { EXIT_PLAN_MODE_DESCRIPTION } from './prompts.js'

export const exitPlanModeParameters = toolParameters('exit_plan_mode', () =>
  z.object({
    plan: z.string().min(1).describe('The plan to present to the user, in markdown.'),
  }),
)

export function createExitPlanModeTool(
  policy: () => PermissionPolicy | undefined,
): ToolDefinition<SchemaOf<typeof exitPlanModeParameters>> {
  return {
    name: 'exit_plan_mode',
    description: EXIT_PLAN_MODE_DESCRIPTION,
    get parameters() {
      return exitPlanModeParameters.schema()
    },
    parametersJsonSchema: exitPlanModeParameters.jsonSchema,
    async execute(_args, execution) {
      const permissions = policy()
      const agent = execution.agent
      if (!permissions || !agent || permissions.modeOf(agent) !== 'plan')
        return { content: 'Plan mode is not on: there is nothing to leave.', isError: true }
      const mode = permissions.leavePlanMode(agent)
      return {
        content: `The user approved your plan. Plan mode is off (permission mode: ${mode}); carry out the plan now.`,
      }
    },
  }
}

/** Registers the tool beside the permission policy (unloading removes it). */
export const exitPlanModeToolPlugin = {
  name: 'exit-plan-mode-tool',
  inject: ['tools'],
  apply(ctx: Context) {
    ctx.tools.register(createExitPlanModeTool(() => ctx.get('permissions')))
  },
}
