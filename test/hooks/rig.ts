// A real loop for the hook bridge tests: session store, JSONL, SQLite or PostgreSQL persistence on a
// temp folder, the OpenAI-compatible adapter against the loopback model, the local
// shell with the bash tool, the subagent tool, and one hook bridge.

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach } from 'vitest'
import { AgentRegistry } from '../../src/agent/index.js'
import { claudeCodeHooksPlugin, codexHooksPlugin, type HookBridgeConfig } from '../../src/hooks/index.js'
import { OpenAiCompatibleAdapter } from '../../src/llm/index.js'
import { JsonlSessionBackend, SqliteSessionBackend } from '../../src/persistence/index.js'
import { PostgresSessionBackend } from '../../src/persistence/postgres/index.js'
import { SessionStore } from '../../src/session/index.js'
import { LocalShellExecutor, ShellEnvRegistry } from '../../src/shell/index.js'
import { BashToolPlugin } from '../../src/tools/bash/index.js'
import { FsToolsPlugin } from '../../src/tools/fs/index.js'
import { ToolRegistry } from '../../src/tools/index.js'
import { subagentToolPlugin } from '../../src/tools/subagent/index.js'
import { type LoopbackModel, type Script, startLoopbackModel } from '../support/loopback-model.js'

export type DialectLabel = 'claude-code' | 'codex'

export const BRIDGES = {
  'claude-code': claudeCodeHooksPlugin,
  codex: codexHooksPlugin,
} as const

export interface RigOptions {
  dialect: DialectLabel
  /** The folder everything lives in (sessions, hook scripts, the agent's cwd). */
  dir: string
  script: Script
  /** The hooks settings (Claude Code shape); written to `<dir>/hooks.json`. */
  hooks?: Record<string, unknown>
  /** Settings files passed to the bridge instead of the written one. */
  files?: string[]
  backend?: 'jsonl' | 'sqlite' | 'postgres'
  /** The server and schema of the `postgres` backend. */
  postgres?: { url: string; schema: string }
  /** The front end can ask the user (PermissionRequest and permission Notifications fire). */
  interactive?: boolean
  /** Also register the file tools (read, write, edit, multi_edit, …). */
  fsTools?: boolean
  /** How deep sub-agents may delegate; 1 unless given. */
  maxDelegationDepth?: number
  /** Loads plugins after the rest of the rig and before the hook bridge. */
  beforeBridge?: (root: Context) => Promise<void>
}

export interface Rig {
  root: Context
  model: LoopbackModel
  agents: AgentRegistry
  /** The agent's working directory (`<dir>/work`). */
  cwd: string
  /** Warnings logged by the bridge (and anyone else). */
  warnings: string[]
  bridge: ReturnType<Context['plugin']>
  /** Replaces the persistence service under the live bridge and agents. */
  swapBackend(backend: 'jsonl' | 'sqlite', where: string): Promise<void>
  close(): Promise<void>
}

export async function startRig(options: RigOptions): Promise<Rig> {
  const { dir } = options
  const cwd = join(dir, 'work')
  mkdirSync(cwd, { recursive: true })
  const model = await startLoopbackModel(options.script, { apiKey: 'test', strict: true })
  const root = new Context()
  const warnings: string[] = []
  root.logger.exporter({
    export(message) {
      if (message.type === 'warn' || message.type === 'error')
        warnings.push(message.args.map(String).join(' '))
    },
  })
  const fibers = [
    root.plugin(SessionStore),
    options.backend === 'sqlite'
      ? root.plugin(SqliteSessionBackend, { file: join(dir, 'sessions.db') })
      : options.backend === 'postgres'
        ? root.plugin(PostgresSessionBackend, options.postgres!)
        : root.plugin(JsonlSessionBackend, { root: join(dir, 'sessions') }),
    root.plugin(OpenAiCompatibleAdapter, {
      baseUrl: model.baseUrl,
      apiKey: 'test',
      model: 'deepseek-flash',
      maxRetries: 0,
    }),
    root.plugin(ToolRegistry),
    root.plugin(LocalShellExecutor, { killGraceMs: 500 }),
    root.plugin(ShellEnvRegistry, { home: dir }),
    root.plugin(BashToolPlugin),
    root.plugin(subagentToolPlugin, { maxDepth: options.maxDelegationDepth ?? 1 }),
    ...(options.fsTools ? [root.plugin(FsToolsPlugin, { home: dir })] : []),
    root.plugin(AgentRegistry, {}),
  ]
  await Promise.all(fibers.map((fiber) => fiber.await()))
  await options.beforeBridge?.(root)
  let files = options.files
  if (!files) {
    const file = join(dir, 'hooks.json')
    writeFileSync(file, JSON.stringify({ hooks: options.hooks ?? {} }))
    files = [file]
  }
  const config: HookBridgeConfig = { files, ...(options.interactive ? { interactive: true } : {}) }
  const bridge = root.plugin(BRIDGES[options.dialect], config)
  await bridge.await()
  return {
    root,
    model,
    agents: root.get('agents')!,
    cwd,
    warnings,
    bridge,
    async swapBackend(backend, where) {
      await fibers[1]!.dispose()
      fibers[1] =
        backend === 'sqlite'
          ? root.plugin(SqliteSessionBackend, { file: where })
          : root.plugin(JsonlSessionBackend, { root: where })
      await fibers[1].await()
    },
    async close() {
      await bridge.dispose()
      await fibers.at(-1)!.dispose()
      for (const fiber of fibers.slice(0, -1).reverse()) await fiber.dispose()
      await model.close()
    },
  }
}

/** Writes an executable bash script and returns its absolute path. */
export function writeScript(dir: string, name: string, body: string): string {
  const path = join(dir, name)
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`)
  chmodSync(path, 0o755)
  return path
}

/**
 * A hook that appends one JSON line per run to `out`: the payload it received, whether
 * `transcript_path` existed at that moment, and CLAUDE_PROJECT_DIR. Then runs `then`.
 */
export function writeRecorder(dir: string, name: string, out: string, then = 'exit 0'): string {
  const program = [
    'let s = ""',
    'process.stdin.on("data", (d) => (s += d)).on("end", () => {',
    '  const fs = require("fs")',
    '  const payload = JSON.parse(s)',
    '  const path = payload.transcript_path',
    '  const transcriptExists = typeof path === "string" && path !== "" ? fs.existsSync(path) : null',
    '  const line = { payload, transcriptExists, projectDir: process.env.CLAUDE_PROJECT_DIR ?? null }',
    `  fs.appendFileSync(${JSON.stringify(out)}, JSON.stringify(line) + "\\n")`,
    '})',
  ].join('\n')
  const js = join(dir, `${name}.cjs`)
  writeFileSync(js, program)
  return writeScript(dir, name, `${JSON.stringify(process.execPath)} ${JSON.stringify(js)}\n${then}`)
}

export interface RecordedRun {
  payload: Record<string, unknown>
  transcriptExists: boolean | null
  projectDir: string | null
}

export function readRecords(out: string): RecordedRun[] {
  let text: string
  try {
    text = readFileSync(out, 'utf8')
  } catch {
    // Nothing recorded yet: the hook never ran.
    return []
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RecordedRun)
}

/** Settings with one event and one command hook. */
export function oneHook(event: string, command: string, extra: { matcher?: string; timeout?: number } = {}) {
  const { matcher, timeout } = extra
  return {
    [event]: [
      {
        ...(matcher !== undefined ? { matcher } : {}),
        hooks: [{ type: 'command', command, ...(timeout !== undefined ? { timeout } : {}) }],
      },
    ],
  }
}

/**
 * Call at the top of a test file: returns `rig(options)`, which starts a rig (of
 * `dialect` when given) that is closed after the current test.
 */
export function useRigs(
  dialect?: DialectLabel,
): (options: Omit<RigOptions, 'dialect'> & { dialect?: DialectLabel }) => Promise<Rig> {
  const rigs: Rig[] = []
  afterEach(async () => {
    while (rigs.length > 0) await rigs.pop()!.close()
  })
  return async (options) => {
    const started = await startRig({ ...options, dialect: options.dialect ?? dialect! })
    rigs.push(started)
    return started
  }
}
