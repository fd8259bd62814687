// The tool registry as each agent's rules leave it: a tool a bare deny rule names (`Bash`,
// `WebFetch`, `mcp__server`) is left out of the list the model is offered, as Claude Code
// takes it out of the model's context. A call to it anyway is still denied by the policy.

import type { Context } from 'cordis'
import { currentService } from '../core/service-ref.js'
import type { ToolSchema } from '../llm/types.js'
import type { AgentHandle } from '../plugin-api/index.js'
import { ToolRegistry } from '../tools/registry.js'

/** The harness's tool registry (`ctx.tools`), offering each agent what its deny rules leave. */
export class PermittedToolRegistry extends ToolRegistry {
  private readonly permissions: () => Context['permissions'] | undefined
  /** Per agent: the full list the last answer was made from, and the answer. */
  private readonly offered = new WeakMap<
    AgentHandle,
    { from: readonly ToolSchema[]; schemas: readonly ToolSchema[] }
  >()

  constructor(ctx: Context) {
    super(ctx)
    this.permissions = currentService(ctx, 'permissions')
  }

  /**
   * The schemas the agent is offered: the registry's, less the tools its rules deny outright.
   * The same frozen array while neither the tools nor the rules changed (a stable prompt prefix).
   */
  override schemasFor(agent: AgentHandle | undefined): readonly ToolSchema[] {
    const all = super.schemasFor(agent)
    const permissions = this.permissions()
    if (!agent || !permissions) return all
    const cached = this.offered.get(agent)
    if (cached?.from === all) return cached.schemas
    const kept = all.filter((schema) => !permissions.deniesOutright(agent, schema.name))
    const schemas = kept.length === all.length ? all : Object.freeze(kept)
    this.offered.set(agent, { from: all, schemas })
    return schemas
  }
}
