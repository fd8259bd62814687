// The model-facing bash tool through the real tool registry: named fields only, the
// managed snapshot on every call, result rendering, workdirs, and background jobs.

import { existsSync, mkdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { BASH_TOOL_DESCRIPTION } from '../../../src/tools/bash/index.js'
import {
  type BackendKind,
  parseEnvLines,
  type ShellTestContext,
  startShellTestContext,
  waitUntilGone,
} from '../../shell/support.js'
import { useTempDirs } from '../../support/temp-dir.js'

const tempDir = useTempDirs()
const open: ShellTestContext[] = []
afterEach(async () => {
  for (const test of open.splice(0)) await test.dispose()
})

async function start(backend: BackendKind = 'jsonl', executor = {}) {
  const test = await startShellTestContext({ home: tempDir(), backend, executor })
  open.push(test)
  return test
}

const PRINT_DSH = 'env | grep ^DSH_ | sort'

describe('bash tool parameters', () => {
  it('exposes only the named fields and a generic $DSH_* description', async () => {
    const test = await start()
    const schema = test.ctx
      .get('tools')!
      .schemas()
      .find((tool) => tool.name === 'bash')!
    expect(Object.keys(schema.parameters.properties as object).sort()).toEqual([
      'command',
      'description',
      'run_in_background',
      'timeout_ms',
      'workdir',
    ])
    expect(schema.parameters.required).toEqual(['command'])
    expect(BASH_TOOL_DESCRIPTION).toContain('$DSH_*')
    expect(BASH_TOOL_DESCRIPTION).toContain('env | grep ^DSH_')
    expect(BASH_TOOL_DESCRIPTION).not.toMatch(/JSONL|SQLITE|DSH_SESSION/i)
    expect(test.ctx.get('tools')!.names()).toEqual(expect.arrayContaining(['bash', 'job_output', 'job_kill']))
  })

  it('ignores model-supplied env, stdin and extra keys: they never replace the managed snapshot', async () => {
    const test = await start()
    const agent = await test.createAgent('real-id', tempDir())
    const output = await test.runTool(
      'bash',
      {
        command: 'echo "id=$DSH_SESSION_ID foo=$FOO"; cat; echo "stdin-end"',
        env: { FOO: 'model', DSH_SESSION_ID: 'forged' },
        dshEnv: { DSH_SESSION_ID: 'forged' },
        stdin: 'model stdin',
        extra: true,
      },
      agent,
    )
    expect(output.isError).toBeUndefined()
    expect(output.content).toBe('id=real-id foo=\nstdin-end')
  })

  it('turns invalid arguments into a tool error', async () => {
    const test = await start()
    expect((await test.runTool('bash', { command: '' })).isError).toBe(true)
    expect((await test.runTool('bash', { command: 'true', timeout_ms: -5 })).isError).toBe(true)
  })
})

describe('managed variables per call', () => {
  it('gives a call without an agent DSH_HOME and DSH_SHELL but no session variables', async () => {
    const test = await start('jsonl')
    const seen = parseEnvLines((await test.runTool('bash', { command: PRINT_DSH })).content)
    expect(seen).toEqual({ DSH_HOME: test.home, DSH_SHELL: test.ctx.get('shell')!.shellPath })
  })

  it('gives JSONL-backed agents their id and locate() path, foreground and background alike', async () => {
    const test = await start('jsonl')
    const cwd = tempDir()
    const agent = await test.createAgent('jsonl-agent', cwd)
    const expected = {
      DSH_HOME: test.home,
      DSH_SHELL: test.ctx.get('shell')!.shellPath,
      DSH_SESSION_ID: 'jsonl-agent',
      DSH_SESSION_JSONL: test.ctx.get('sessionPersistence')!.locate(agent.session.header)!.path,
    }
    expect(parseEnvLines((await test.runTool('bash', { command: PRINT_DSH }, agent)).content)).toEqual(
      expected,
    )

    const started = await test.runTool('bash', { command: PRINT_DSH, run_in_background: true }, agent)
    const jobId = /^started background job (\S+)/.exec(started.content)![1]!
    await test.ctx.get('shell')!.job(jobId)!.done
    const jobOutput = await test.runTool('job_output', { job_id: jobId }, agent)
    expect(jobOutput.content.split('\n')[0]).toBe(`[job ${jobId}: exited] ${PRINT_DSH}`)
    expect(parseEnvLines(jobOutput.content)).toEqual(expected)
  })

  it.each(['sqlite', 'memory', 'none'] as const)(
    'with %s persistence: DSH_SESSION_ID present, DSH_SESSION_JSONL absent',
    async (backend) => {
      const test = await start(backend)
      const agent = await test.createAgent(`agent-${backend}`, tempDir())
      for (const run_in_background of [false, true]) {
        const output = await test.runTool('bash', { command: PRINT_DSH, run_in_background }, agent)
        let text = output.content
        if (run_in_background) {
          const jobId = /^started background job (\S+)/.exec(text)![1]!
          text = (await test.ctx.get('shell')!.job(jobId)!.done).stdout.text
        }
        const seen = parseEnvLines(text)
        expect(seen.DSH_SESSION_ID).toBe(`agent-${backend}`)
        expect(seen).not.toHaveProperty('DSH_SESSION_JSONL')
      }
    },
  )

  it('follows a persistence service swapped at run time', async () => {
    const test = await start('jsonl')
    const agent = await test.createAgent('swapped', tempDir())
    const jsonlOf = async () =>
      parseEnvLines((await test.runTool('bash', { command: PRINT_DSH }, agent)).content)
    expect((await jsonlOf()).DSH_SESSION_JSONL).toMatch(/swapped\.jsonl$/)
    await test.swapBackend('sqlite')
    expect(await jsonlOf()).not.toHaveProperty('DSH_SESSION_JSONL')
    await test.swapBackend('none')
    expect(await jsonlOf()).not.toHaveProperty('DSH_SESSION_JSONL')
    await test.swapBackend('jsonl')
    expect((await jsonlOf()).DSH_SESSION_JSONL).toBe(
      test.ctx.get('sessionPersistence')!.locate(agent.session.header)!.path,
    )
  })

  it('fails the call loudly when a contributor misbehaves', async () => {
    const test = await start()
    const fiber = test.ctx.plugin({
      name: 'bad-contributor',
      inject: ['shellEnv'],
      apply(ctx: Context) {
        ctx.shellEnv.register({
          name: 'bad',
          keys: { DSH_BAD: 'bad' },
          resolve: () => ({ DSH_OTHER: 'x' }) as never,
        })
      },
    })
    await fiber.await()
    const output = await test.runTool('bash', { command: 'echo ran' })
    expect(output.isError).toBe(true)
    expect(output.content).toMatch(/bad returned undeclared key DSH_OTHER/)
    await fiber.dispose()
    expect((await test.runTool('bash', { command: 'echo ran' })).content).toBe('ran')
  })
})

describe('bash tool results', () => {
  it('renders stdout, a [stderr] section, (no output) and the exit-code marker', async () => {
    const test = await start()
    expect((await test.runTool('bash', { command: 'echo out; echo err >&2; exit 3' })).content).toBe(
      'out\n[stderr]\nerr\n[exit code: 3]',
    )
    const silent = await test.runTool('bash', { command: 'true' })
    expect(silent).toMatchObject({ content: '(no output)' })
    expect(silent.isError).toBeUndefined()
    const failed = await test.runTool('bash', { command: 'exit 1' })
    expect(failed).toMatchObject({ content: '(no output)\n[exit code: 1]' })
    expect(failed.isError).toBeUndefined()
    // Structured facts for hooks (never sent to the model).
    expect(failed.details).toMatchObject({ stdout: '', stderr: '', exitCode: 1, interrupted: false })
  })

  it('marks timeouts and the killing signal', async () => {
    const test = await start('jsonl', { killGraceMs: 200 })
    const output = await test.runTool('bash', { command: 'echo before; sleep 30', timeout_ms: 1_000 })
    expect(output.isError).toBeUndefined()
    expect(output.content).toBe('before\n[timed out after 1000ms]\n[killed by signal: SIGTERM]')
  })

  it('names the full-output file when output is truncated', async () => {
    const test = await start('jsonl', { maxOutputChars: 100 })
    const output = await test.runTool('bash', { command: 'seq 1 1000' })
    const [marker, ...tail] = output.content.split('\n')
    expect(marker).toMatch(/^\[output truncated; full output: (\/.+)\]$/)
    expect(tail.at(-1)).toBe('1000')
  })

  it('runs in the agent cwd by default, resolves a relative workdir against it, and reports a missing one', async () => {
    const test = await start()
    const cwd = realpathSync(tempDir())
    mkdirSync(join(cwd, 'sub'))
    const agent = await test.createAgent('cwd-agent', cwd)
    expect((await test.runTool('bash', { command: 'pwd' }, agent)).content).toBe(cwd)
    expect((await test.runTool('bash', { command: 'pwd', workdir: 'sub' }, agent)).content).toBe(
      join(cwd, 'sub'),
    )
    expect((await test.runTool('bash', { command: 'pwd' })).content).toBe(process.cwd())
    const missing = await test.runTool('bash', { command: 'pwd', workdir: 'nope' }, agent)
    expect(missing).toEqual({
      content: `bash: working directory does not exist: ${join(cwd, 'nope')}`,
      isError: true,
    })
  })

  it('kills the command when the turn is cancelled', async () => {
    const test = await start('jsonl', { killGraceMs: 200 })
    const controller = new AbortController()
    const marker = join(tempDir(), 'started')
    const running = test.runTool(
      'bash',
      { command: `echo hi; touch ${marker}; sleep 30` },
      undefined,
      controller.signal,
    )
    while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 10))
    controller.abort()
    const output = await running
    expect(output.content).toBe('hi\n[cancelled]\n[killed by signal: SIGTERM]')
  })
})

describe('background jobs', () => {
  it('starts, reads and kills a job; jobs of other agents are invisible', async () => {
    const test = await start('jsonl', { killGraceMs: 200 })
    const owner = await test.createAgent('owner', tempDir())
    const other = await test.createAgent('other', tempDir())
    const started = await test.runTool(
      'bash',
      { command: 'echo ready; sleep 60', run_in_background: true },
      owner,
    )
    expect(started.content).toMatch(/^started background job job-\d+\n/)
    const jobId = /^started background job (\S+)/.exec(started.content)![1]!
    const job = test.ctx.get('shell')!.job(jobId)!
    while (job.output().stdout.text === '') await new Promise((resolve) => setTimeout(resolve, 20))
    expect((await test.runTool('job_output', { job_id: jobId }, owner)).content).toBe(
      `[job ${jobId}: running] echo ready; sleep 60\nready`,
    )
    expect(await test.runTool('job_output', { job_id: jobId }, other)).toEqual({
      content: `no background job ${jobId}`,
      isError: true,
    })
    expect((await test.runTool('job_kill', { job_id: jobId }, other)).isError).toBe(true)
    expect(job.status).toBe('running')
    expect((await test.runTool('job_kill', { job_id: jobId }, owner)).content).toBe(
      `killed background job ${jobId}\nready\n[cancelled]\n[killed by signal: SIGTERM]`,
    )
    expect((await test.runTool('job_kill', { job_id: jobId }, owner)).content).toMatch(/had already ended/)
    expect((await test.runTool('job_output', { job_id: 'job-999' }, owner)).isError).toBe(true)
  })

  it('kills the jobs it started and removes its tools when the bash-tool plugin unloads', async () => {
    const test = await start('jsonl', { killGraceMs: 200 })
    const started = await test.runTool('bash', { command: 'sleep 60', run_in_background: true })
    const job = test.ctx.get('shell')!.job(/job-\d+/.exec(started.content)![0])!
    await test.bashTool.dispose()
    expect(test.ctx.get('tools')!.names()).not.toContain('bash')
    expect(test.ctx.get('tools')!.names()).not.toContain('job_output')
    expect(job.status).toBe('killed')
    expect(await waitUntilGone(job.pid)).toBe(true)
  })
})
