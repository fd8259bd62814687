// `ctx.projectTrust`: the one place a running harness asks "may this project folder bring
// its own hooks, MCP servers, allow rules, skills and commands?". The front end fixes how
// (interactive asks, headless refuses what the user has not trusted, `--no-project-config`
// refuses all); answers are kept for the process, a yes is remembered with the content of
// the folder's configuration, and a refusal is said once, in one line naming what is left out.

import { type Context, Service } from 'cordis'
import {
  type DecideProjectTrustOptions,
  decideProjectTrust,
  type ProjectTrustDecision,
  type TrustFrontEnd,
} from './decide.js'
import { ProjectTrustStore } from './trust-store.js'

export interface ProjectTrustConfig {
  /** The harness home holding the trust store. */
  home: string
  /** `headless` (`dsh run`, `dsh stdio`) never asks; `interactive` (chat, web, ACP) asks. Default `interactive`. */
  frontEnd?: TrustFrontEnd
  /** `--no-project-config`: no project brings anything, nobody is asked. */
  disabled?: boolean
  /** `--trust-project` / config `trustProjects`: every project folder is trusted without asking. */
  granted?: boolean
  /** Asks the user; without it an interactive front end trusts nothing it has not remembered. */
  ask?: DecideProjectTrustOptions['ask']
}

declare module 'cordis' {
  interface Context {
    projectTrust: ProjectTrustService
  }
  interface Events {
    /**
     * Before the trust question for `folder` is put: each subsystem pushes what that folder
     * brings for it (`MCP server db`), so one answer never covers something it did not name.
     */
    'trust/brings'(folder: string, brings: string[]): void
  }
}

export class ProjectTrustService extends Service {
  readonly store: ProjectTrustStore
  private readonly decisions = new Map<string, Promise<ProjectTrustDecision>>()
  /** Front ends that can ask, registered after the harness was built (`dsh web`); the latest asks. */
  private readonly askers: NonNullable<DecideProjectTrustOptions['ask']>[] = []
  /** Folders whose refusal was already said (a refusal nobody could answer is decided again). */
  private readonly told = new Set<string>()

  constructor(
    ctx: Context,
    private readonly config: ProjectTrustConfig,
  ) {
    super(ctx, 'projectTrust')
    this.store = new ProjectTrustStore(config.home)
  }

  /** True when project files are turned off altogether (`--no-project-config`). */
  get disabled(): boolean {
    return this.config.disabled === true
  }

  /**
   * Lets a front end that starts after the harness (the web server) ask the trust
   * question. A Cordis effect: the asker goes when the registering plugin unloads. The
   * config's own `ask` still comes first.
   */
  askWith(ask: NonNullable<DecideProjectTrustOptions['ask']>): () => void {
    return this.ctx.effect(() => {
      this.askers.push(ask)
      return () => {
        const index = this.askers.indexOf(ask)
        if (index >= 0) this.askers.splice(index, 1)
      }
    }, 'projectTrust.askWith')
  }

  /**
   * Whether `folder` (a project root) may bring its own configuration. Asked at most once
   * per folder and process; concurrent callers share the one question. A failing store or
   * prompt rejects: the caller loads nothing and says why.
   */
  decide(folder: string, brings: readonly string[] = []): Promise<ProjectTrustDecision> {
    let decision = this.decisions.get(folder)
    if (!decision) {
      const ask = this.config.ask ?? this.askers.at(-1)
      // The caller's list first (it asked), then whatever the other subsystems see there.
      const everything = [...brings]
      this.ctx.emit('trust/brings', folder, everything)
      decision = decideProjectTrust(this.store, {
        folder,
        frontEnd: this.config.frontEnd ?? 'interactive',
        brings: [...new Set(everything)],
        ...(this.config.disabled ? { disabled: true } : {}),
        ...(this.config.granted ? { granted: true } : {}),
        ...(ask ? { ask } : {}),
      })
      this.decisions.set(folder, decision)
      decision.then(
        (made) => this.tell(folder, made, [...new Set(everything)]),
        () => {}, // the caller reports a failed decision
      )
      // A failed decision is not kept: the next caller tries again. Nor is "nobody could be
      // asked": the trust store may say yes by the next agent (another process, `dsh` chat).
      const forget = () => this.decisions.delete(folder)
      decision.then((made) => made.reason === 'cannot-ask' && forget(), forget)
    }
    return decision
  }

  /** The one line saying a folder's configuration is left out, and how to load it. */
  private tell(folder: string, decision: ProjectTrustDecision, brings: readonly string[]): void {
    if (decision.trusted || decision.reason === 'disabled' || this.told.has(folder)) return
    this.told.add(folder)
    this.ctx.logger('trust').warn('%s', refusalLine(folder, decision, brings))
  }
}

/** `project /x: .mcp.json changed since you trusted it; not loaded: MCP server db, 2 hooks (…)`. */
export function refusalLine(
  folder: string,
  decision: ProjectTrustDecision,
  brings: readonly string[],
): string {
  const what = brings.length > 0 ? brings.join(', ') : 'its configuration'
  const why =
    decision.changed && decision.changed.length > 0
      ? `${decision.changed.join(', ')} changed since you trusted it`
      : decision.reason === 'declined'
        ? 'not trusted (you said no)'
        : 'not trusted'
  const remedy =
    decision.reason === 'declined'
      ? ''
      : decision.reason === 'cannot-ask'
        ? ' (nobody can be asked here: trust it in dsh chat first)'
        : ' (trust it in dsh chat, or pass --trust-project)'
  return `project ${folder}: ${why}; not loaded: ${what}${remedy}`
}
