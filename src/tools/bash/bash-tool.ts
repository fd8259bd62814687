// The model-facing `bash` tool and its background-job companions. Every call carries the
// managed `DSH_*` snapshot of its own ToolExecution, foreground and background alike.

import type { Context } from 'cordis'
import { isDshError } from '../../core/errors.js'
import { currentService } from '../../core/service-ref.js'
import type { ToolExecution, ToolOutput } from '../../plugin-api/index.js'
import type { ShellJobHandle } from '../../shell/types.js'
import { callRequest } from './call-request.js'
import { BASH_TOOL_DESCRIPTION, JOB_KILL_TOOL_DESCRIPTION, JOB_OUTPUT_TOOL_DESCRIPTION } from './prompt.js'
import { renderJob, renderShellResult } from './render.js'
import { type BashArguments, bashParameters, type JobArguments, jobParameters } from './schema.js'

/** Who started each background job: an agent id, or undefined for calls without an agent. */
type JobOwners = Map<string, string | undefined>

/**
 * Registers `bash`, `job_output` and `job_kill`; kills an agent's jobs when the agent is
 * disposed, and every job it started when it unloads.
 */
export const BashToolPlugin = {
  name: 'bash-tool',
  inject: ['tools', 'shell', 'shellEnv'],
  apply(ctx: Context): void {
    const owners: JobOwners = new Map()
    const services = currentServices(ctx)
    ctx.tools.register({
      name: 'bash',
      description: BASH_TOOL_DESCRIPTION,
      get parameters() {
        return bashParameters.schema()
      },
      parametersJsonSchema: bashParameters.jsonSchema,
      hookNames: BASH_HOOK_NAMES,
      execute: (args, execution) => runBash(services, owners, args, execution),
    })
    ctx.tools.register({
      name: 'job_output',
      description: JOB_OUTPUT_TOOL_DESCRIPTION,
      get parameters() {
        return jobParameters.schema()
      },
      parametersJsonSchema: jobParameters.jsonSchema,
      execute: async (args, execution) => {
        const job = findJob(ctx, owners, args, execution)
        return job ? { content: await renderJob(job) } : noSuchJob(args)
      },
    })
    ctx.tools.register({
      name: 'job_kill',
      description: JOB_KILL_TOOL_DESCRIPTION,
      get parameters() {
        return jobParameters.schema()
      },
      parametersJsonSchema: jobParameters.jsonSchema,
      execute: async (args, execution) => {
        const job = findJob(ctx, owners, args, execution)
        if (!job) return noSuchJob(args)
        const wasRunning = job.status === 'running'
        const result = await job.kill()
        const verdict = wasRunning
          ? `killed background job ${job.id}`
          : `background job ${job.id} had already ended`
        return { content: `${verdict}\n${renderShellResult(result)}` }
      },
    })
    // A job belongs to its agent: a disposed sub-agent's jobs die with it (nobody else may
    // reach them through job_output or job_kill), as its terminals do.
    ctx.on('agent/disposed', (agent) => killJobs(ctx, owners, (owner) => owner === agent.id))
    ctx.effect(() => () => killJobs(ctx, owners, () => true), 'bash-tool: kill its background jobs on unload')
  },
}

/** Claude Code calls it Bash with `timeout` (also in ms); Codex calls its shell tool Bash too. */
const BASH_HOOK_NAMES = {
  claudeCode: { name: 'Bash', fields: { timeout_ms: 'timeout' } },
  codex: { name: 'Bash' },
} as const

/** The current executor and registry at every call (a swap is seen at once). */
function currentServices(ctx: Context) {
  const shell = currentService(ctx, 'shell')
  const shellEnv = currentService(ctx, 'shellEnv')
  const spill = currentService(ctx, 'spill')
  const sessions = currentService(ctx, 'sessions')
  return () => ({ shell: shell(), shellEnv: shellEnv(), spill: spill(), sessions: sessions() })
}

async function runBash(
  services: ReturnType<typeof currentServices>,
  owners: JobOwners,
  args: BashArguments,
  execution: ToolExecution,
): Promise<ToolOutput> {
  const { shell, shellEnv, spill, sessions } = services()
  if (!shell || !shellEnv)
    return { content: 'bash is not available: no shell executor is loaded', isError: true }
  const call = await callRequest({ shell, shellEnv, spill, sessions }, execution, args.workdir)
  const { workdir, dshEnv } = call
  const spillPath = call.spillPath
    ? (stream: 'stdout' | 'stderr') => call.spillPath!(`bash-${stream}`)
    : undefined
  const { sandboxPaths } = call
  try {
    if (args.run_in_background) {
      const job = shell.start({
        command: args.command,
        workdir,
        dshEnv,
        ...sandboxPaths,
        ...(spillPath ? { spillPath } : {}),
      })
      for (const id of owners.keys()) if (!shell.job(id)) owners.delete(id)
      owners.set(job.id, execution.agent?.id)
      return {
        content: `started background job ${job.id}\n(pid ${job.pid}; read its output with job_output and stop it with job_kill)`,
      }
    }
    const result = await shell.run({
      command: args.command,
      workdir,
      signal: execution.signal,
      dshEnv,
      ...sandboxPaths,
      ...(spillPath ? { spillPath } : {}),
      ...(args.timeout_ms !== undefined ? { timeoutMs: args.timeout_ms } : {}),
    })
    return {
      content: renderShellResult(result),
      details: {
        stdout: result.stdout.text,
        stderr: result.stderr.text,
        exitCode: result.exitCode,
        interrupted: result.killed || result.timedOut || result.signal !== null,
        timedOut: result.timedOut,
      },
    }
  } catch (error) {
    if (isDshError(error)) return { content: `bash: ${error.message}`, isError: true }
    throw error
  }
}

function findJob(
  ctx: Context,
  owners: JobOwners,
  args: JobArguments,
  execution: ToolExecution,
): ShellJobHandle | undefined {
  // Jobs are per agent: another agent's job id is treated as unknown.
  if (!owners.has(args.job_id) || owners.get(args.job_id) !== execution.agent?.id) return undefined
  return ctx.get('shell')?.job(args.job_id)
}

/**
 * Kills the running jobs of the owners `which` picks, each with its whole process group, and
 * forgets them. Resolves when every kill has settled.
 */
async function killJobs(ctx: Context, owners: JobOwners, which: (owner: string | undefined) => boolean) {
  const shell = ctx.get('shell')
  const picked = [...owners].filter(([, owner]) => which(owner)).map(([id]) => id)
  for (const id of picked) owners.delete(id)
  const running = picked.map((id) => shell?.job(id)).filter((job) => job?.status === 'running')
  await Promise.allSettled(running.map((job) => job!.kill()))
}

function noSuchJob(args: JobArguments): ToolOutput {
  return { content: `no background job ${args.job_id}`, isError: true }
}
