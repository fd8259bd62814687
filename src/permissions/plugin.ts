// The permission policy service (`ctx.permissions`): each agent's mode and rules, decided
// on `tools/pre-execute` after the PreToolUse hooks (loaded before it) have had their say.
// Where nobody can be asked (`dsh run`, stdio), an `ask` becomes a deny that says so.

import { type Context, Service } from 'cordis'
import { errorMessage } from '../core/errors.js'
import { findProjectRoot } from '../core/project-root.js'
import type { AgentHandle } from '../plugin-api/index.js'
import { sessionSettings } from '../session/settings.js'
import type { SessionId } from '../session/types.js'
import { discoverCommands, discoverSkills } from '../skills/discover.js'
import { ProjectTrustStore } from '../trust/index.js'
import type {} from '../trust/service.js'
import { claudeCodeToolName } from './claude-code-tool-names.js'
import { hookPermissionMode, isPermissionMode, type PermissionMode } from './modes.js'
import { decideToolPermission, type PolicyDecision } from './policy.js'
import { rememberAllowRule } from './remember.js'
import { ruleNamesTool } from './rule-matcher.js'
import { parsePermissionRule, parsePermissionRules } from './rule-parser.js'
import { mergeRuleSets } from './rule-set.js'
import { createSearchFilter, type SearchFilter } from './search-filter.js'
import { loadProjectPermissions } from './settings.js'
import type { PermissionRuleSet } from './types.js'
import { urlHost } from './web-domain.js'

export interface PermissionPolicyConfig {
  /**
   * The mode new agents start in (a resumed or forked one restores its own, a sub-agent takes
   * its live parent's). Default `auto`.
   */
  mode?: PermissionMode
  /** `--permission-mode`: every agent starts in it, also a resumed or forked one (not a sub-agent: see `mode`). */
  forcedMode?: PermissionMode
  /** Rules from dsh's config file (`permissions.allow/ask/deny`); `/path` patterns are relative to `baseDir`. */
  allow?: string[]
  ask?: string[]
  deny?: string[]
  baseDir?: string
  /** `--allowed-tools` / `--disallowed-tools`. */
  allowedTools?: string[]
  disallowedTools?: string[]
  /** Folders besides the project where edits need no approval. */
  additionalDirectories?: string[]
  /**
   * False where nobody can answer an `ask` (headless): it is denied with a message. Default
   * false. A function decides per agent (`dsh stdio`: whether its client answers permission requests).
   */
  canAsk?: boolean | ((agent: AgentHandle) => boolean)
  /** The harness home (its trust store decides whether project allow rules count). */
  home?: string
  /** Which kind of front end this is (the trust service decides project trust for both). */
  frontEnd?: 'interactive' | 'headless'
  /** A trust decision the front end already made (it wins over the store). */
  projectTrusted?: boolean
}

export interface AgentPermissions {
  mode: PermissionMode
  /** The mode before plan mode was switched on, which leaving plan mode returns to. */
  beforePlan?: PermissionMode
  readonly projectRoot: string
  readonly rules: PermissionRuleSet
  readonly trusted: boolean
  /** Project settings files that contributed rules. */
  readonly files: readonly string[]
  readonly ignoredAllow: number
}

export const PLAN_MODE_CONTEXT =
  'Plan mode is on: do not change anything yet. Use read-only tools (read, glob, grep, ls, and bash commands that only read, such as git log or rg) to research, then present a concrete plan by calling exit_plan_mode with it; the user decides whether to leave plan mode. Tools that edit files and commands that may change things are refused until then.'

export class PermissionPolicy extends Service {
  private readonly agents = new Map<SessionId, AgentPermissions>()
  /** Sub-agents of a live parent, by their id: they run in the parent's mode, whatever it becomes. */
  private readonly followers = new Map<SessionId, { agent: AgentHandle; parent: SessionId }>()
  /** Trust decisions of the harness's trust service, by project root. */
  private readonly trustByRoot = new Map<string, boolean>()
  private readonly baseRules: PermissionRuleSet

  constructor(
    ctx: Context,
    private readonly config: PermissionPolicyConfig = {},
  ) {
    super(ctx, 'permissions')
    this.baseRules = mergeRuleSets(
      { deny: [], ask: [], allow: [] },
      {
        deny: parsePermissionRules(
          [...(config.disallowedTools ?? []), ...(config.deny ?? [])],
          config.baseDir,
        ),
        ask: parsePermissionRules(config.ask ?? [], config.baseDir),
        allow: parsePermissionRules(
          [...(config.allowedTools ?? []), ...(config.allow ?? [])],
          config.baseDir,
        ),
      },
    )
    ctx.on('agent/preparing', ({ cwd }) => this.decideTrust(cwd))
    // A trust question asked for a folder's hooks or MCP servers names its rules, skills and commands too.
    ctx.on('trust/brings', (folder, brings) => {
      brings.push(...projectBrings(folder, folder))
    })
    ctx.on('agent/setup', (agent) => {
      this.load(agent)
    })
    ctx.on('agent/settings', (agent, settings) => {
      const state = this.agents.get(agent.id)
      if (state) settings.mode = state.mode
    })
    ctx.on('agent/disposed', (agent) => {
      this.agents.delete(agent.id)
      this.followers.delete(agent.id)
    })
    ctx.on('tools/pre-execute', async (call, next) => {
      let view: { tool: string; input: unknown }
      try {
        view = this.viewOf(call.name, call.input, call.agent)
      } catch (error) {
        // Fail closed: a call whose rule subject cannot be worked out does not run.
        return {
          kind: 'deny',
          reason: `cannot check ${call.name} against the permission rules: ${errorMessage(error)}`,
        }
      }
      const decision = this.decide(call.agent, view.tool, view.input, call.name)
      if (decision.behavior === 'deny') return { kind: 'deny', reason: decision.reason }
      const downstream = await next()
      if (decision.behavior === 'allow' || downstream.kind === 'deny') return downstream
      const canAsk = this.config.canAsk
      if (typeof canAsk === 'function' ? canAsk(call.agent) : canAsk === true)
        return { kind: 'ask', reason: decision.reason }
      const remedy =
        decision.configWrite === true
          ? 'only --permission-mode bypassPermissions writes it without asking'
          : 'allow it with --allowed-tools or another --permission-mode'
      return {
        kind: 'deny',
        reason: `${decision.reason}; this run cannot ask for approval, so the call was not made (${remedy})`,
      }
    })
    ctx.on('agent/turn-starting', (state) => {
      if (this.modeOf(state.agent) === 'plan') state.context.push(PLAN_MODE_CONTEXT)
    })
  }

  /** The agent's permission state (mode, rules, project); set up on first use. */
  stateOf(agent: AgentHandle): AgentPermissions {
    return this.agents.get(agent.id) ?? this.load(agent)
  }

  modeOf(agent: AgentHandle): PermissionMode {
    return this.stateOf(agent).mode
  }

  /** The mode as hooks see it (`permission_mode`): `auto` is reported as `default`. */
  hookModeOf(agent: AgentHandle): string {
    return hookPermissionMode(this.modeOf(agent))
  }

  /**
   * Switches the agent's mode, and its live sub-agents' (theirs too, down the tree), from their
   * next tool call on, also mid-turn; front ends showing it (ACP) hear `permissions/mode-changed`.
   */
  setMode(agent: AgentHandle, mode: PermissionMode): void {
    const state = this.stateOf(agent)
    if (state.mode !== mode) {
      if (mode === 'plan') state.beforePlan = state.mode
      state.mode = mode
      agent.recordSettings()
      this.ctx.emit('permissions/mode-changed', agent, mode)
    }
    for (const follower of this.followers.values())
      if (follower.parent === agent.id) this.setMode(follower.agent, mode)
  }

  /**
   * Leaves plan mode after the user approved the plan (`exit_plan_mode`): back to the mode
   * before it, or Claude Code's `default` (ask before edits) when the session began in plan
   * mode. Answers the new mode.
   */
  leavePlanMode(agent: AgentHandle): PermissionMode {
    const state = this.stateOf(agent)
    const mode = state.beforePlan ?? 'default'
    state.beforePlan = undefined
    this.setMode(agent, mode)
    return mode
  }

  /**
   * "Yes, and don't ask again": `rule` allows from now on in this session, and is saved in
   * the project's `.claude/settings.local.json`. Answers the file written. In a folder not
   * trusted, later sessions leave the saved rule out like every project allow rule.
   */
  allowAlways(agent: AgentHandle, rule: string): string {
    const parsed = parsePermissionRule(rule, findProjectRoot(agent.cwd))
    const state = this.stateOf(agent)
    const path = rememberAllowRule(state.projectRoot, rule, this.config.home)
    this.agents.set(agent.id, {
      ...state,
      rules: { ...state.rules, allow: [...state.rules.allow, parsed] },
      files: state.files.includes(path) ? state.files : [...state.files, path],
    })
    return path
  }

  /** The tool name and input rules see: the tool's own view (terminal tools), else its Claude Code name. */
  private viewOf(name: string, input: unknown, agent: AgentHandle): { tool: string; input: unknown } {
    const own = this.ctx
      .get('tools')
      ?.get(name)
      ?.permissionSubject?.(isRecord(input) ? input : {}, agent)
    return own ?? { tool: claudeCodeToolName(name), input }
  }

  /**
   * The decision for one call, before hooks downstream and before asking anyone. `tool` is
   * the name rules see it by; `calledAs` the dsh tool called, when that is another (a rule
   * naming `terminal_start` matches the call its view calls `Bash`).
   */
  decide(agent: AgentHandle, tool: string, input: unknown, calledAs?: string): PolicyDecision {
    const state = this.stateOf(agent)
    // Its parent's mode is a sub-agent's: leaving plan mode on its own would widen it past it.
    if (tool === 'ExitPlanMode' && state.mode === 'plan' && this.followers.has(agent.id)) {
      return {
        behavior: 'deny',
        reason:
          "a sub-agent runs in its parent's permission mode and cannot leave plan mode: answer with your plan instead",
      }
    }
    return decideToolPermission({
      mode: state.mode,
      rules: state.rules,
      subject: {
        tool,
        input: isRecord(input) ? input : {},
        cwd: agent.cwd,
        ...(calledAs !== undefined && calledAs !== tool ? { calledAs } : {}),
      },
      projectRoot: state.projectRoot,
      extraFolders: this.config.additionalDirectories ?? [],
    })
  }

  /**
   * Whether every call of the dsh tool `name` is denied for this agent: a deny rule without a
   * specifier names it (`Bash`, `bash`, `Read` for grep, `mcp__server`). Such a tool is not
   * offered to the model (PermittedToolRegistry); its calls are denied all the same.
   */
  deniesOutright(agent: AgentHandle, name: string): boolean {
    const tool = claudeCodeToolName(name)
    // The tools that start and drive shells in terminals run Bash commands: a bare Bash deny
    // takes them away too (terminal_read, _list and _kill run nothing and stay).
    const runsShells = name === 'terminal_start' || name === 'terminal_send'
    return this.stateOf(agent).rules.deny.some(
      (rule) =>
        rule.specifier === undefined &&
        (ruleNamesTool(rule, tool, name) || (runsShells && ruleNamesTool(rule, 'Bash', 'bash'))),
    )
  }

  /**
   * Why a web_fetch of `from` may not follow a redirect to `to` (undefined: it may). The
   * rules judge every host a fetch reaches: a deny stops it; a host that would need approval
   * stops it too unless it is the host already fetched (approved or allowed with the call).
   */
  fetchRedirectRefusal(agent: AgentHandle, from: string, to: string): string | undefined {
    let decision: PolicyDecision
    try {
      const view = this.viewOf('web_fetch', { url: to }, agent)
      decision = this.decide(agent, view.tool, view.input, 'web_fetch')
    } catch (error) {
      return `${from} redirects to ${to}, which could not be checked against the permission rules (${errorMessage(error)})`
    }
    if (decision.behavior === 'deny') return `${from} redirects to ${to}: ${decision.reason}`
    if (decision.behavior === 'ask' && urlHost(to) !== urlHost(from))
      return `${from} redirects to ${to}, another host, which needs its own approval: fetch that URL directly`
    return undefined
  }

  /**
   * What a search call (grep, glob: `tool` is the dsh name) must leave out of its answer:
   * files the agent's Read deny rules name, and those its ask rules name unless the call was
   * asked for under that rule. `searched` is the absolute file or folder searched. Undefined
   * when no rule can leave anything out; throws when the rules cannot be worked out (the
   * search is then refused).
   */
  searchFilter(
    agent: AgentHandle,
    call: { tool: string; input: Readonly<Record<string, unknown>> },
    searched: string,
  ): SearchFilter | undefined {
    const state = this.stateOf(agent)
    const view = this.viewOf(call.tool, call.input, agent)
    return createSearchFilter({
      rules: state.rules,
      mode: state.mode,
      subject: { tool: view.tool, input: isRecord(view.input) ? view.input : {}, cwd: agent.cwd },
      searched,
    })
  }

  /**
   * Whether the project around `cwd` may bring its own allow rules, skills and commands: the
   * front end's decision when it made one, else the trust service's (made before the agent
   * was built, when the project brings anything). Without a trust service (a policy composed
   * alone), the store's word.
   */
  projectTrusted(cwd: string): boolean {
    if (this.config.projectTrusted !== undefined) return this.config.projectTrusted
    const root = findProjectRoot(cwd)
    const decided = this.trustByRoot.get(root)
    if (decided !== undefined) return decided
    if (this.ctx.get('projectTrust')) return false
    return this.config.home !== undefined && new ProjectTrustStore(this.config.home).isTrusted(root)
  }

  /**
   * Before an agent is built (its system prompt lists project skills): the harness's trust
   * service decides, and may ask the user, when the project brings something.
   */
  private async decideTrust(cwd: string): Promise<void> {
    const service = this.ctx.get('projectTrust')
    if (!service || this.config.projectTrusted !== undefined) return
    const root = findProjectRoot(cwd)
    // Only a project that brings something is worth a question (hooks and MCP ask for theirs).
    const brings = projectBrings(root, cwd)
    if (brings.length === 0) return
    // Fail closed, as hooks and MCP do: a question nobody could answer loads none of these.
    const trusted = await service.decide(root, brings).then(
      (decision) => decision.trusted,
      (error: unknown) => {
        const why = errorMessage(error)
        this.ctx
          .logger('permissions')
          .warn(
            'project %s: could not decide trust (%s); its allow rules, skills and commands do not load',
            root,
            why,
          )
        return false
      },
    )
    this.trustByRoot.set(root, trusted)
  }

  private load(agent: AgentHandle, trusted = this.projectTrusted(agent.cwd)): AgentPermissions {
    const root = findProjectRoot(agent.cwd)
    const project = loadProjectPermissions(root, trusted)
    const { parentSession: parent, origin } = agent.session.header
    const inherited = parent !== undefined ? this.agents.get(parent)?.mode : undefined
    // A sub-agent of a live parent runs in the parent's mode as it is now, never in an older one
    // a fork's seed recorded, and follows its changes. A sub-agent session resumed on its own
    // (its parent not live here) is a resume: it keeps its logged mode like any session.
    const follows = origin === 'subagent' && parent !== undefined && inherited !== undefined
    if (follows) this.followers.set(agent.id, { agent, parent })
    // The flag, else what a resumed or forked log recorded, else a live parent's, else the config's.
    const recorded = sessionSettings(agent.session).mode
    const restored = recorded !== undefined && isPermissionMode(recorded) ? recorded : undefined
    const state: AgentPermissions = {
      mode: follows
        ? inherited
        : (this.config.forcedMode ?? restored ?? inherited ?? this.config.mode ?? 'auto'),
      projectRoot: root,
      rules: mergeRuleSets(this.baseRules, project.rules),
      trusted,
      files: project.files,
      ignoredAllow: project.ignoredAllow,
    }
    this.agents.set(agent.id, state)
    return state
  }
}

/** What the project's own files would add through this policy and the skills plugin: "2 permission allow rules", "1 skill". */
function projectBrings(root: string, cwd: string): string[] {
  const count = (n: number, what: string) => (n > 0 ? [`${n} ${what}${n === 1 ? '' : 's'}`] : [])
  const sources = { home: root, cwd, projectTrusted: true }
  const fromProject = (items: readonly { scope: string }[]) =>
    items.filter((item) => item.scope === 'project').length
  return [
    ...count(loadProjectPermissions(root, false).ignoredAllow, 'permission allow rule'),
    ...count(fromProject(discoverSkills(sources)), 'skill'),
    ...count(fromProject(discoverCommands(sources)), 'command'),
  ]
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
