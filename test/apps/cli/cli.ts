// Spawning the built CLI (`dist/bundle/main.js`, what the `dsh` bin runs) as a child process against a
// loopback model: a temporary home with a config file pointing at the model.

import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import {
  type LoopbackModel,
  type LoopbackModelOptions,
  type Script,
  useLoopbackModels,
} from '../../support/loopback-model.js'

export const CLI = resolve('dist/bundle/main.js')

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does it first)`)
}

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface CliRunOptions {
  env?: NodeJS.ProcessEnv
  cwd?: string
  input?: string
  /** Leave stdin open for the test to write to (`child.stdin`). */
  openStdin?: boolean
  timeoutMs?: number
}

/** A spawned CLI and the promise of its end. */
export interface CliChild {
  child: ChildProcess
  stdout(): string
  stderr(): string
  done: Promise<CliResult>
}

export function spawnCli(args: string[], options: CliRunOptions = {}): CliChild {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    stdout += text
  })
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    stderr += text
  })
  if (options.input !== undefined) child.stdin!.end(options.input)
  else if (!options.openStdin) child.stdin!.end()
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000)
  const done = new Promise<CliResult>((resolvePromise, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolvePromise({ code, signal, stdout, stderr })
    })
  })
  return { child, stdout: () => stdout, stderr: () => stderr, done }
}

export function runCli(args: string[], options: CliRunOptions = {}): Promise<CliResult> {
  return spawnCli(args, options).done
}

/** A temporary DSH_HOME with a config pointing at `baseUrl`, a project folder, and the child env. */
export interface CliWorld {
  home: string
  /** A project folder (symlink-free), the cwd of the runs. */
  project: string
  env: NodeJS.ProcessEnv
}

export function makeWorld(dir: string, baseUrl: string, extraConfig = ''): CliWorld {
  const root = realpathSync(dir)
  const home = join(root, 'home')
  const project = join(root, 'project')
  mkdirSync(home)
  mkdirSync(project)
  writeFileSync(join(home, 'config.yaml'), `model:\n  baseUrl: ${baseUrl}\n  maxRetries: 0\n${extraConfig}`)
  return { home, project, env: cliEnv({ DSH_HOME: home, DEEPSEEK_API_KEY: 'test-key' }) }
}

/** A world whose config points at its own loopback model. */
export interface ModelWorld extends CliWorld {
  model: LoopbackModel
}

export interface ModelWorldOptions extends LoopbackModelOptions {
  /** More `config.yaml` lines after the model block (see `makeWorld`). */
  config?: string
}

/**
 * Call at the top of a test file: returns `start(script, options)`, which starts a loopback
 * model (closed after the current test) and a world in a new folder from `makeDir` whose
 * config points at it.
 */
export function useModelWorlds(
  makeDir: () => string,
): (script?: Script, options?: ModelWorldOptions) => Promise<ModelWorld> {
  const startModel = useLoopbackModels()
  return async (script = [], { config = '', ...options } = {}) => {
    const model = await startModel(script, options)
    return { ...makeWorld(makeDir(), model.baseUrl, config), model }
  }
}

/** The parent's environment without DSH_* and model variables, plus `extra`; never coloured. */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('DSH_') || key.startsWith('DEEPSEEK_')) continue
    env[key] = value
  }
  return { ...env, NO_COLOR: '1', ...extra }
}

/** True when output holds a JavaScript stack frame. */
export function hasStack(text: string): boolean {
  return /^\s+at .+\(.+:\d+:\d+\)$|^\s+at .+:\d+:\d+$/m.test(text)
}

/** Parses JSON lines. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}
