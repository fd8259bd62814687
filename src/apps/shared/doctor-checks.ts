// The checks of `dsh doctor` (src/apps/cli/doctor.ts) and the chat's `/doctor`: what a new
// user needs before the first turn, one line each — ok, a problem with its fix, or a note
// about something optional that is missing.

import { existsSync } from 'node:fs'
import { readApiKeyFile } from '../../config/api-key-file.js'
import type { ResolvedConfig } from '../../config/load.js'
import { errorMessage } from '../../core/errors.js'
import { type ResolvedOpenAiConfig, requireApiKey, resolveOpenAiConfig } from '../../llm/openai/config.js'
import { listModels } from '../../llm/openai/openai-adapter.js'
import { resolveCommand, resolveServerSpecs } from '../../lsp/index.js'
import { findExecutable } from '../../shell/index.js'
import type { Colors } from './render.js'

/** How long the base URL may take to answer `GET /models`: a doctor must not hang. */
export const DOCTOR_TIMEOUT_MS = 5_000

export type CheckStatus = 'ok' | 'problem' | 'note'

export interface DoctorCheck {
  name: string
  status: CheckStatus
  detail: string
  /** What to do about a problem or a note. */
  fix?: string
}

export interface DoctorOptions {
  /** The model the session uses (a `--model` flag or `/model`); default the config's. */
  model?: string
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
}

/** Every check, in the order shown; never throws. */
export async function runDoctorChecks(
  config: ResolvedConfig,
  cwd: string,
  options: DoctorOptions = {},
): Promise<DoctorCheck[]> {
  const env = options.env ?? process.env
  const checks: DoctorCheck[] = []
  let endpoint: ResolvedOpenAiConfig | undefined
  try {
    endpoint = modelEndpoint(config, options.model, env)
  } catch (error) {
    checks.push({
      name: 'model',
      status: 'problem',
      detail: errorMessage(error),
      fix: 'fix model.* in the config',
    })
  }
  if (endpoint) {
    const key = keyCheck(endpoint, env)
    // Without the key no request goes out: the server was not tried, so nothing is said of it.
    const server: DoctorCheck[] =
      key.status === 'problem'
        ? [{ name: 'base URL', status: 'note', detail: `${endpoint.baseUrl} not checked: no API key` }]
        : await endpointChecks(endpoint, options)
    checks.push(key, ...server)
  }
  checks.push(bwrapCheck(config), ripgrepCheck(env), ...lspChecks(config, cwd), clipboardCheck(env))
  if (config.persistence.backend === 'postgres') checks.push(await postgresCheck(config))
  return checks
}

/** The configured model endpoint (throws a user-facing error for a bad base URL or key file). */
export function modelEndpoint(
  config: ResolvedConfig,
  model: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedOpenAiConfig {
  return resolveOpenAiConfig(
    {
      ...(config.model.apiKeyFile !== undefined ? { apiKey: readApiKeyFile(config.model.apiKeyFile) } : {}),
      apiKeyEnv: config.model.apiKeyEnv,
      noKey: config.model.apiKey === 'none',
      baseUrl: config.model.baseUrl,
      model: model ?? config.model.name,
    },
    env,
  )
}

function keyCheck(endpoint: ResolvedOpenAiConfig, env: NodeJS.ProcessEnv): DoctorCheck {
  const name = 'API key'
  if (endpoint.noKey) return { name, status: 'ok', detail: 'none needed (model.apiKey: none)' }
  try {
    const key = requireApiKey(endpoint, env)
    if (key === undefined)
      return { name, status: 'ok', detail: 'none needed (the model server is on loopback)' }
    const from = endpoint.apiKey !== undefined ? 'model.apiKeyFile' : endpoint.apiKeyEnv
    return { name, status: 'ok', detail: `set (${from})` }
  } catch {
    return {
      name,
      status: 'problem',
      detail: `${endpoint.apiKeyEnv} is not set`,
      fix: `export ${endpoint.apiKeyEnv}=<your key>, or set model.apiKeyFile in the config`,
    }
  }
}

/** `GET /models` once, bounded: the base URL line and the models line. */
async function endpointChecks(
  endpoint: ResolvedOpenAiConfig,
  options: DoctorOptions,
): Promise<DoctorCheck[]> {
  const url = endpoint.baseUrl
  let models: string[]
  try {
    models = await listModels(endpoint, AbortSignal.timeout(options.timeoutMs ?? DOCTOR_TIMEOUT_MS))
  } catch (error) {
    const message = errorMessage(error)
    // An HTTP answer (401, 404, …) means the server is there; no answer means it is not.
    const answered = /HTTP \d{3}/.test(message)
    const fix = 'check model.baseUrl (or DEEPSEEK_BASE_URL), the network and HTTPS_PROXY'
    if (!answered)
      return [
        { name: 'base URL', status: 'problem', detail: `${url} unreachable: ${firstLine(message)}`, fix },
      ]
    return [
      { name: 'base URL', status: 'ok', detail: `${url} answers` },
      {
        name: 'models',
        status: 'problem',
        detail: firstLine(message),
        fix: 'check the API key and the base URL',
      },
    ]
  }
  const base: DoctorCheck = { name: 'base URL', status: 'ok', detail: `${url} reachable` }
  if (models.length === 0)
    return [
      base,
      {
        name: 'models',
        status: 'note',
        detail: 'the server lists no models',
        fix: 'set model.name to one it serves',
      },
    ]
  if (!models.includes(endpoint.model))
    return [
      base,
      {
        name: 'models',
        status: 'problem',
        detail: `${models.length} listed; ${JSON.stringify(endpoint.model)} is not among them`,
        fix: 'set model.name or use --model (`dsh models` lists them)',
      },
    ]
  return [
    base,
    { name: 'models', status: 'ok', detail: `${models.length} listed, ${endpoint.model} among them` },
  ]
}

function bwrapCheck(config: ResolvedConfig): DoctorCheck {
  const mode = config.sandbox ?? 'off'
  const found = existsSync(config.sandboxBwrapPath)
  if (found) return { name: 'bwrap', status: 'ok', detail: `${config.sandboxBwrapPath} (sandbox ${mode})` }
  const fix = 'install bubblewrap, or set sandboxBwrapPath'
  if (mode === 'off')
    return {
      name: 'bwrap',
      status: 'note',
      detail: `${config.sandboxBwrapPath} not found (sandbox off)`,
      fix,
    }
  return {
    name: 'bwrap',
    status: 'problem',
    detail: `${config.sandboxBwrapPath} not found but sandbox is ${mode}`,
    fix,
  }
}

function ripgrepCheck(env: NodeJS.ProcessEnv): DoctorCheck {
  if (env.DSH_NO_RG === '1')
    return { name: 'rg', status: 'ok', detail: 'turned off (DSH_NO_RG=1): grep uses its own search' }
  const rg = findExecutable('rg', env.PATH)
  if (rg) return { name: 'rg', status: 'ok', detail: rg }
  return {
    name: 'rg',
    status: 'note',
    detail: 'not found: grep uses its slower built-in search',
    fix: 'install ripgrep',
  }
}

function lspChecks(config: ResolvedConfig, cwd: string): DoctorCheck[] {
  if (config.lsp === false)
    return [{ name: 'language servers', status: 'ok', detail: 'off (config lsp: false)' }]
  const specs = resolveServerSpecs(config.lsp.servers)
  const found = specs.flatMap((spec) => (resolveCommand(spec.command, cwd) ? [spec.id] : []))
  const missing = specs.filter((spec) => !found.includes(spec.id))
  const detail = `${specs.length} configured, found: ${found.length > 0 ? found.join(', ') : 'none'}`
  if (missing.length === 0) return [{ name: 'language servers', status: 'ok', detail }]
  const install = missing.flatMap((spec) => (spec.install ? [`${spec.id}: ${spec.install}`] : [])).slice(0, 2)
  return [
    {
      name: 'language servers',
      status: found.length > 0 ? 'ok' : 'note',
      detail: `${detail}; not installed: ${missing.map((spec) => spec.id).join(', ')}`,
      ...(install.length > 0 ? { fix: install.join('; ') } : {}),
    },
  ]
}

function clipboardCheck(env: NodeJS.ProcessEnv): DoctorCheck {
  const tool = ['wl-paste', 'xclip'].map((name) => findExecutable(name, env.PATH)).find(Boolean)
  if (tool) return { name: 'clipboard', status: 'ok', detail: tool }
  return {
    name: 'clipboard',
    status: 'note',
    detail: 'no wl-paste or xclip: images cannot be pasted into the chat',
    fix: 'install wl-clipboard (Wayland) or xclip (X11)',
  }
}

async function postgresCheck(config: ResolvedConfig): Promise<DoctorCheck> {
  const { createPool, describeTarget, resolvePostgresConfig } = await import(
    '../../persistence/postgres/index.js'
  )
  const { url, schema, hostName, leaseMs, statementTimeoutMs, reconnectMs } = config.persistence
  const resolved = resolvePostgresConfig({ url, schema, hostName, leaseMs, statementTimeoutMs, reconnectMs })
  const target = describeTarget(resolved)
  const pool = await createPool(resolved)
  try {
    await pool.query('SELECT 1')
    return { name: 'PostgreSQL', status: 'ok', detail: `${target} reachable` }
  } catch (error) {
    return {
      name: 'PostgreSQL',
      status: 'problem',
      detail: `${target}: ${firstLine(errorMessage(error))}`,
      fix: 'check persistence.url (or the PG* variables) and that the server runs',
    }
  } finally {
    await pool.end().catch(() => {})
  }
}

/** The first line of an error, without the adapter's advice (the check gives its own fix). */
function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').split(' — ')[0]!
}

/**
 * `ok      API key          set (DEEPSEEK_API_KEY)`, with `— fix: …` after a problem or a
 * note; `clean` makes the server-given text safe for a terminal.
 */
export function formatCheck(
  check: DoctorCheck,
  colors: Colors,
  clean: (text: string) => string = (t) => t,
): string {
  const mark =
    check.status === 'ok'
      ? colors.green('ok     ')
      : check.status === 'problem'
        ? colors.red('problem')
        : colors.yellow('note   ')
  const fix =
    check.fix !== undefined && check.status !== 'ok' ? colors.dim(` — fix: ${clean(check.fix)}`) : ''
  return `${mark} ${check.name.padEnd(16)} ${clean(check.detail)}${fix}`
}
