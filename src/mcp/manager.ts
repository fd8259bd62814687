// The MCP service (`ctx.mcp`): which servers each agent sees (its session's, its
// project's once trusted, the user's), starting them in parallel when first needed, and
// their tools as one tool provider. Sub-agents see their parent's servers (same processes).

import { dirname } from 'node:path'
import { type Context, Service } from 'cordis'
import { errorMessage } from '../core/errors.js'
import { findProjectRoot } from '../core/project-root.js'
import type { AgentHandle, ProvidedTool, ToolProvider } from '../plugin-api/index.js'
import type { SessionId } from '../session/types.js'
import { createSecretFilter, type SecretFilter } from '../shell/index.js'
import { type McpServerConfig, type McpServerSource, readProjectServers } from './config.js'
import { McpConnection, type McpProgress } from './connection.js'
import type { McpManagerConfig, McpServerStatus, ProjectScope } from './manager-types.js'
import { normalizeName, serverOfToolName } from './naming.js'
import { createResourceTools } from './resource-tools.js'
import { startingLine, startReport } from './status-lines.js'
import { untilAborted } from './wait.js'

export type { McpManagerConfig, McpServerStatus } from './manager-types.js'

export class McpManager extends Service {
  private readonly user = new Map<string, McpConnection>()
  private readonly projects = new Map<string, ProjectScope>()
  /** ACP `mcpServers`, by the session that brought them. */
  private readonly sessionScopes = new Map<SessionId, Map<string, McpConnection>>()
  /** The session whose servers an agent sees: itself, or the parent of a sub-agent. */
  private readonly owners = new Map<SessionId, SessionId>()
  /** Agents whose first model request already waited for their servers. */
  private readonly waited = new WeakSet<AgentHandle>()
  /** Per agent: the connection tool lists its tool array was built from. */
  private readonly toolCache = new WeakMap<
    AgentHandle,
    { parts: (readonly ProvidedTool[])[]; tools: readonly ProvidedTool[] }
  >()
  private readonly reported = new Map<McpConnection, string>()
  private readonly roots = new WeakMap<AgentHandle, string>()
  readonly provider: ToolProvider
  private readonly secrets: SecretFilter
  /** `mcp_list_resources` and `mcp_read_resource`, offered while a visible server has resources. */
  private readonly resourceTools: readonly ProvidedTool[]

  constructor(
    ctx: Context,
    private readonly config: McpManagerConfig,
  ) {
    super(ctx, 'mcp')
    this.secrets = createSecretFilter(config.secrets)
    for (const [name, server] of Object.entries(config.servers ?? {})) {
      if (!this.chosen(name)) continue
      this.user.set(
        name,
        this.connection(
          name,
          server,
          { kind: 'user', ...(config.configFile ? { file: config.configFile } : {}) },
          process.cwd(),
          config.configFile !== undefined ? dirname(config.configFile) : undefined,
        ),
      )
    }
    this.provider = {
      name: 'mcp',
      tools: (agent) => this.toolsFor(agent),
      explain: (name, agent) => this.explain(name, agent),
    }
    this.resourceTools = createResourceTools((agent) => this.visible(agent))
    // A trust question asked for a folder's hooks or rules names its .mcp.json servers too.
    ctx.on('trust/brings', (folder, brings) => {
      for (const name of Object.keys(readProjectServers(folder)?.servers ?? {}))
        brings.push(`MCP server ${name}`)
    })
    ctx.effect(
      () => () => {
        void this.closeAll()
      },
      'mcp: stop servers on unload',
    )
  }

  /** Servers an ACP client brought for one session; replaces any it brought before. */
  async setSessionServers(
    sessionId: SessionId,
    servers: Record<string, McpServerConfig>,
    cwd: string,
  ): Promise<void> {
    await this.closeSession(sessionId)
    if (Object.keys(servers).length === 0) return
    const scope = new Map<string, McpConnection>()
    for (const [name, server] of Object.entries(servers)) {
      scope.set(name, this.connection(name, server, { kind: 'session', sessionId }, cwd))
    }
    this.sessionScopes.set(sessionId, scope)
  }

  /** Records whose servers a new agent sees (a sub-agent: its parent's). */
  adopt(agent: AgentHandle): void {
    const { parentSession, origin } = agent.session.header
    const owner =
      origin === 'subagent' && parentSession !== undefined
        ? (this.owners.get(parentSession) ?? parentSession)
        : agent.id
    this.owners.set(agent.id, owner)
  }

  /** Forgets an agent; a session's own servers stop with it (not with its sub-agents). */
  async release(agent: AgentHandle): Promise<void> {
    this.owners.delete(agent.id)
    await this.closeSession(agent.id)
  }

  /**
   * Before an agent's model request: starts every server it sees (in parallel) and, the
   * first time only, waits for each up to its start-up timeout. Failures are reported, not
   * thrown. When `signal` aborts, stops waiting at once.
   */
  async prepare(agent: AgentHandle, signal?: AbortSignal): Promise<void> {
    const connections = await this.visible(agent)
    if (signal?.aborted) return
    for (const connection of connections) void connection.start()
    // A tools/list_changed announced during the last step is reflected in this request.
    await untilAborted(Promise.all(connections.map((connection) => connection.settled())), signal)
    if (this.waited.has(agent) || signal?.aborted) return
    this.waited.add(agent)
    if (this.config.background) {
      // One line for all servers not ready yet (a hundred would be a hundred lines otherwise).
      const starting = connections.filter((connection) => connection.state === 'starting')
      for (const connection of starting) this.reported.set(connection, startReport(connection, true)!)
      if (starting.length > 0) this.ctx.logger('mcp').warn('%s', startingLine(starting))
      for (const connection of connections) this.report(connection)
      return
    }
    // A cancelled turn (Ctrl-C, SIGTERM) stops waiting at once; the servers go on starting
    // until the harness closes them.
    await untilAborted(Promise.all(connections.map((connection) => connection.ready())), signal)
    if (signal?.aborted) return
    for (const connection of connections) this.report(connection)
  }

  /**
   * Whether the agent's project may bring its `.mcp.json` servers: asks the trust question
   * now (at most once per folder) instead of at the first model request. False, asking
   * nothing, when the project has no servers; starts none.
   */
  async projectTrusted(agent: AgentHandle): Promise<boolean> {
    const project = this.projectScope(agent.cwd, this.rootOf(agent))
    return project.connections.size > 0 && (await project.decision)
  }

  /** The servers an agent sees, by name: session over project over user. */
  async visible(agent: AgentHandle): Promise<McpConnection[]> {
    const byName = new Map<string, McpConnection>()
    for (const [name, connection] of this.user) byName.set(name, connection)
    const project = this.projectScope(agent.cwd, this.rootOf(agent))
    if (project.connections.size > 0 && (await project.decision)) {
      for (const [name, connection] of project.connections) byName.set(name, connection)
    }
    for (const [name, connection] of this.sessionFor(agent)) byName.set(name, connection)
    return [...byName.values()]
  }

  /**
   * Starts every server `cwd` sees without an agent (`dsh mcp list`): the user's, and the
   * project's when trusted; waits for each up to its start-up timeout.
   */
  async check(cwd: string): Promise<McpServerStatus[]> {
    const project = this.projectScope(cwd)
    const connections = [...this.user.values()]
    if (project.connections.size > 0 && (await project.decision))
      connections.push(...project.connections.values())
    await Promise.all(connections.map((connection) => connection.ready()))
    return this.status(cwd)
  }

  /** Every server known for `cwd` (user, that folder's project, live sessions') with its state. */
  status(cwd?: string): McpServerStatus[] {
    const rows: McpServerStatus[] = []
    const add = (connection: McpConnection, state?: 'untrusted') =>
      rows.push({
        name: connection.name,
        source: connection.source,
        state: state ?? connection.state,
        tools: connection.tools.length,
        ...(connection.error !== undefined ? { error: connection.error } : {}),
        ...(connection.config.type === 'http' || connection.config.type === 'sse'
          ? {}
          : { log: connection.log.path }),
      })
    for (const connection of this.user.values()) add(connection)
    if (cwd !== undefined) {
      const project = this.projectScope(cwd)
      for (const connection of project.connections.values()) {
        add(connection, connection.state === 'idle' && !this.decidedTrust(project) ? 'untrusted' : undefined)
      }
    }
    for (const scope of this.sessionScopes.values()) for (const connection of scope.values()) add(connection)
    return rows
  }

  /** Problems met reading `.mcp.json` for `cwd` (each a line). */
  projectProblems(cwd: string): string[] {
    return this.projectScope(cwd).problems
  }

  /** A server an agent sees, by its configured or normalized name. */
  async find(agent: AgentHandle, server: string): Promise<McpConnection | undefined> {
    const connections = await this.visible(agent)
    return (
      connections.find((connection) => connection.name === server) ??
      connections.find((connection) => normalizeName(connection.name) === server)
    )
  }

  /** Stops every server. */
  async closeAll(): Promise<void> {
    const all = [
      ...this.user.values(),
      ...[...this.projects.values()].flatMap((project) => [...project.connections.values()]),
      ...[...this.sessionScopes.values()].flatMap((scope) => [...scope.values()]),
    ]
    await Promise.allSettled(all.map((connection) => connection.close()))
  }

  private toolsFor(agent: AgentHandle | undefined): readonly ProvidedTool[] {
    if (!agent) return []
    const connections = this.visibleNow(agent)
    const parts = connections.map((connection) => connection.tools)
    if (connections.some((connection) => connection.state === 'connected' && connection.hasResources)) {
      parts.push(this.resourceTools)
    }
    const cached = this.toolCache.get(agent)
    if (
      cached &&
      cached.parts.length === parts.length &&
      cached.parts.every((part, i) => part === parts[i])
    ) {
      return cached.tools
    }
    const tools = Object.freeze(parts.flat())
    this.toolCache.set(agent, { parts, tools })
    return tools
  }

  private explain(name: string, agent: AgentHandle | undefined): string | undefined {
    const server = serverOfToolName(name)
    if (!agent || server === undefined) return undefined
    const connection = this.visibleNow(agent).find((candidate) => normalizeName(candidate.name) === server)
    if (!connection) return undefined
    if (connection.state !== 'connected') {
      return `MCP server ${connection.name} is not available: ${connection.describeNotConnected()}.`
    }
    const tools = connection.tools.map((tool) => tool.schema.name)
    return `MCP server ${connection.name} has no tool ${name}. Its tools: ${tools.join(', ') || '(none)'}`
  }

  /** Like `visible`, without waiting for a trust answer (an unanswered project counts as not trusted). */
  private visibleNow(agent: AgentHandle): McpConnection[] {
    const byName = new Map<string, McpConnection>()
    for (const [name, connection] of this.user) byName.set(name, connection)
    const project = this.projects.get(this.rootOf(agent))
    if (project && this.trustedNow.has(project)) {
      for (const [name, connection] of project.connections) byName.set(name, connection)
    }
    for (const [name, connection] of this.sessionFor(agent)) byName.set(name, connection)
    return [...byName.values()]
  }

  private readonly trustedNow = new WeakSet<ProjectScope>()

  private decidedTrust(project: ProjectScope): boolean {
    return this.trustedNow.has(project)
  }

  private sessionFor(agent: AgentHandle): Map<string, McpConnection> {
    const owner = this.owners.get(agent.id) ?? agent.id
    return this.sessionScopes.get(owner) ?? new Map()
  }

  /** An agent's project root, found once (its cwd never changes). */
  private rootOf(agent: AgentHandle): string {
    let root = this.roots.get(agent)
    if (root === undefined) {
      root = findProjectRoot(agent.cwd)
      this.roots.set(agent, root)
    }
    return root
  }

  private projectScope(cwd: string, root = findProjectRoot(cwd)): ProjectScope {
    const project = this.projects.get(root)
    if (project) return project
    const read = readProjectServers(root)
    const connections = new Map<string, McpConnection>()
    for (const [name, server] of Object.entries(read?.servers ?? {})) {
      if (!this.chosen(name)) continue
      connections.set(name, this.connection(name, server, { kind: 'project', file: read!.file }, root))
    }
    const problems = read?.problems ?? []
    for (const problem of problems) this.ctx.logger('mcp').warn('%s', problem)
    // The one trust decision (`ctx.projectTrust`, asked at most once per folder); without the
    // service nothing a project brings is started.
    const trust = this.ctx.get('projectTrust')
    const brings = [...connections.keys()].map((name) => `MCP server ${name}`)
    const created: ProjectScope = {
      root,
      ...(read ? { file: read.file } : {}),
      connections,
      problems,
      decision: Promise.resolve(false),
    }
    created.decision =
      connections.size === 0 || !trust
        ? Promise.resolve(false)
        : trust.decide(root, brings).then(
            ({ trusted }) => {
              // Not trusted: the trust service says so once, naming these servers.
              if (trusted) this.trustedNow.add(created)
              return trusted
            },
            (error) => {
              // Fail closed: a trust question that cannot be answered loads nothing.
              this.ctx
                .logger('mcp')
                .warn('project MCP servers of %s are not loaded: %s', root, errorMessage(error))
              return false
            },
          )
    this.projects.set(root, created)
    return created
  }

  private connection(
    name: string,
    config: McpServerConfig,
    source: McpServerSource,
    cwd: string,
    cwdBase?: string,
  ): McpConnection {
    const connection: McpConnection = new McpConnection({
      name,
      config,
      source,
      home: this.config.home,
      cwd,
      ...(cwdBase !== undefined ? { cwdBase } : {}),
      ...(this.config.env ? { env: this.config.env } : {}),
      secrets: this.secrets,
      spill: () => this.ctx.get('spill'),
      onProgress: (progress: McpProgress) => this.ctx.emit('mcp/progress', progress),
      onChange: () => {
        // In the background a failure is said when it happens, not at a first request; a
        // crash is said when it happens everywhere.
        if (connection.state === 'crashed' || (this.config.background && connection.state === 'failed'))
          this.report(connection)
        this.ctx.emit('mcp/changed', name)
      },
    })
    return connection
  }

  /** One line per server whose start failed or is slow, or that crashed; a line is not said twice in a row. */
  private report(connection: McpConnection): void {
    const line = startReport(connection, this.config.background === true)
    if (line === undefined || this.reported.get(connection) === line) return
    this.reported.set(connection, line)
    this.ctx.logger('mcp').warn('%s', line)
  }

  private chosen(name: string): boolean {
    return this.config.only === undefined || this.config.only.includes(name)
  }

  private async closeSession(sessionId: SessionId): Promise<void> {
    const scope = this.sessionScopes.get(sessionId)
    if (!scope) return
    this.sessionScopes.delete(sessionId)
    await Promise.allSettled([...scope.values()].map((connection) => connection.close()))
  }
}
