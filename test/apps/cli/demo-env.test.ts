// `dsh demo` (a real turn against the built-in loopback model, no key), `dsh env`,
// `--version`, help, and a SIGINT while a bash command runs.

import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, CLI, cliEnv, jsonLines, makeWorld, runCli, spawnCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-demo-')
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

describe('dsh demo', () => {
  it('runs a real turn with bash in a temporary folder and home, and prints the transcript path', async () => {
    const cwd = makeDir()
    const home = makeDir()
    // No key anywhere, and a DSH_HOME the demo must leave alone.
    const result = await runCli(['demo'], { env: cliEnv({ DSH_HOME: home }), cwd })
    // On a pipe the demo's reasoning goes to stderr, labelled, never into stdout.
    expect(result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('thinking: '))).toEqual(
      [],
    )
    expect(result.code).toBe(0)
    const transcript = /^transcript {2}(\S+\.jsonl)$/m.exec(result.stdout)?.[1]
    expect(transcript).toBeDefined()
    expect(transcript!.startsWith(home)).toBe(false)

    const lines = jsonLines(readFileSync(transcript!, 'utf8'))
    const header = lines[0]!
    const id = header.id as string
    // The model's bash call saw this session's own id and transcript path.
    const results = lines
      .filter((line) => line.type === 'tool/result')
      .map((line) => line.data as { content: string })
    expect(results[0]!.content).toContain(`DSH_SESSION_ID=${id}`)
    expect(results[0]!.content).toContain(`DSH_SESSION_JSONL=${transcript}`)
    expect(results[1]!.content).toMatch(/\d+ events on disk so far/)
    expect(lines.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'completed' } })
    expect(result.stdout).toContain(`I ran as session \`${id}\``)
    expect(result.stdout).toContain(`sessions show ${id}`)
  })
})

describe('dsh env, --version, help', () => {
  it('lists the managed DSH_* variables with their descriptions', async () => {
    const home = makeDir()
    const table = await runCli(['env'], { env: cliEnv({ DSH_HOME: home }) })
    expect(table.code).toBe(0)
    for (const key of ['DSH_HOME', 'DSH_SHELL', 'DSH_SESSION_ID', 'DSH_SESSION_JSONL']) {
      expect(table.stdout).toMatch(new RegExp(`^${key} `, 'm'))
    }
    const json = JSON.parse((await runCli(['env', '--json'], { env: cliEnv({ DSH_HOME: home }) })).stdout)
    expect(json).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'DSH_SESSION_JSONL', contributor: 'session-persistence' }),
      ]),
    )
    expect(json.every((row: { description: string }) => row.description.length > 0)).toBe(true)
  })

  it('prints the package version and help', async () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }
    const version = await runCli(['--version'], { env: cliEnv() })
    expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' })
    const help = await runCli(['--help'], { env: cliEnv() })
    expect(help.code).toBe(0)
    for (const command of ['run', 'chat', 'sessions', 'env', 'demo']) expect(help.stdout).toContain(command)
    // Not a terminal and no arguments: help, not a chat waiting for input.
    const bare = await runCli([], { env: cliEnv() })
    expect(bare.code).toBe(0)
    expect(bare.stdout).toContain('Usage: dsh')
  })
})

it('SIGINT while a bash command runs kills it, ends the turn aborted and exits 130', async () => {
  const model = await startModel(
    [
      {
        toolCalls: [
          {
            name: 'bash',
            arguments: { command: 'echo started; : > reached-sleep; sleep 30; echo finished' },
          },
        ],
      },
    ],
    { strict: true },
  )
  const w = makeWorld(makeDir(), model.baseUrl)
  const started = Date.now()
  const run = spawnCli(['run', '--json', 'wait a while'], { env: w.env, cwd: w.project })
  const deadline = Date.now() + 10_000
  while (!run.stdout().includes('"tool-start"')) {
    if (Date.now() > deadline) throw new Error(`no tool-start; stderr: ${run.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  // The interrupt comes while the command runs: it has written its marker and goes on to the sleep.
  await until(() => existsSync(join(w.project, 'reached-sleep')), 30_000, 'the command to write its marker')
  run.child.kill('SIGINT')
  const result = await run.done
  expect(result.code).toBe(130)
  expect(Date.now() - started).toBeLessThan(25_000) // not the 30 s of the sleep
  const lines = jsonLines(result.stdout)
  expect(lines.at(-1)).toMatchObject({ type: 'result', reason: 'aborted' })
  const log = jsonLines(readFileSync(lines[0]!.transcriptPath as string, 'utf8'))
  expect(log.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'aborted' } })
  const toolResult = log.find((line) => line.type === 'tool/result')!.data as { content: string }
  expect(toolResult.content).not.toContain('finished')
  expect(log.slice(1).some((line) => (line.data as { reason?: string }).reason === 'interrupted')).toBe(false)
})

describe('a closed stdout', () => {
  it('ends quietly with exit 0 when the reader has gone away (`dsh env | head -0`)', async () => {
    const child = spawn(process.execPath, [CLI, 'env'], {
      env: cliEnv({ DSH_HOME: makeDir() }),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    // Close the read end before the command writes anything.
    child.stdout.destroy()
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(stderr).toBe('')
    expect(code).toBe(0)
  })
})
