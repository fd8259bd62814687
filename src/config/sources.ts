// Where each effective config value came from, for `/config`: the loader notes the fields a
// file set, the command line notes its flags, and what is left came from the environment
// (DSH_HOME, DEEPSEEK_BASE_URL) or the schema's defaults.

import { DEFAULT_BASE_URL, DEFAULT_MODEL } from '../llm/openai/config.js'

/** Dotted config keys → a description of what set them (`user file …`, `flag --sandbox`). */
export type ConfigSources = Readonly<Record<string, string>>

/** What describeConfig reads of a resolved config (load.ts imports this file, not the reverse). */
export interface DescribedConfig {
  readonly home: string
  readonly model: { readonly name?: string | undefined; readonly baseUrl?: string | undefined }
  readonly sources?: ConfigSources
}

export interface ConfigRow {
  key: string
  value: string
  source: string
}

/** Longest value shown in one row; the rest is cut with a mark. */
const MAX_VALUE_CHARS = 80

/** Keys of the resolved config that are bookkeeping, not settings. */
const NOT_SETTINGS = new Set(['source', 'sources'])

/** The dotted keys of every leaf a parsed config file sets (arrays and empty objects count as leaves). */
export function fieldsSetIn(raw: unknown, prefix = ''): string[] {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || Object.keys(raw).length === 0)
    return prefix === '' ? [] : [prefix]
  return Object.entries(raw).flatMap(([key, value]) =>
    fieldsSetIn(value, prefix === '' ? key : `${prefix}.${key}`),
  )
}

/** Marks every field in `fields` as set by `source`. */
export function sourcesFor(fields: readonly string[], source: string): Record<string, string> {
  return Object.fromEntries(fields.map((field) => [field, source]))
}

/**
 * Every effective setting with its source, in the config's own order. `live` overrides
 * values the session changed since it started (model, effort, permission mode).
 */
export function describeConfig(
  config: DescribedConfig,
  env: NodeJS.ProcessEnv,
  live: readonly ConfigRow[] = [],
): ConfigRow[] {
  const fromEnv = env.DEEPSEEK_BASE_URL?.trim()
  // Values a file may leave unset that still have an effective value, and where it came from.
  const derived: Record<string, string> = {
    home: env.DSH_HOME ? 'env DSH_HOME' : 'default (~/.dsh)',
    ...(config.model.baseUrl === undefined && fromEnv ? { 'model.baseUrl': 'env DEEPSEEK_BASE_URL' } : {}),
  }
  const sources = { ...derived, ...config.sources }
  if (config.sources?.dshHome !== undefined) sources.home = config.sources.dshHome
  const sourceOf = (key: string): string | undefined => {
    for (let at = key; at !== ''; at = at.includes('.') ? at.slice(0, at.lastIndexOf('.')) : '')
      if (sources[at] !== undefined) return sources[at]
    return undefined
  }
  const effective = {
    ...config,
    model: {
      ...config.model,
      name: config.model.name ?? DEFAULT_MODEL,
      baseUrl: config.model.baseUrl ?? (fromEnv || DEFAULT_BASE_URL),
    },
  }
  const rows: ConfigRow[] = []
  const walk = (value: unknown, key: string) => {
    if (value === undefined) return
    if (
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      Object.keys(value).length > 0
    ) {
      for (const [child, inner] of Object.entries(value)) walk(inner, `${key}.${child}`)
      return
    }
    rows.push({ key, value: show(value), source: sourceOf(key) ?? 'default' })
  }
  for (const [key, value] of Object.entries(effective)) if (!NOT_SETTINGS.has(key)) walk(value, key)
  for (const row of live) setRow(rows, row)
  return rows
}

function setRow(rows: ConfigRow[], row: ConfigRow): void {
  const at = rows.findIndex((candidate) => candidate.key === row.key)
  if (at >= 0) rows[at] = row
  else rows.push(row)
}

function show(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text
}
