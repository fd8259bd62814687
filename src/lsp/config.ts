// The `lsp` config section: `false` turns code intelligence off; `servers` overrides presets
// by name or adds servers; the waits and limits have documented defaults here, once.

import * as z from 'zod'
import { lazySchema } from '../core/lazy-schema.js'
import { LSP_PRESETS } from './presets.js'
import type { LspServerSpec } from './types.js'

export const DEFAULT_DIAGNOSTICS_WAIT_MS = 3000
export const DEFAULT_DIAGNOSTICS_SETTLE_MS = 300
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000
export const DEFAULT_MAX_RESTARTS = 3

/**
 * The `lsp` section's schemas, built on first use (lspSchemas): a config without the section
 * never builds them (issue #31: zod schemas cost start-up time to build).
 */
function buildLspSchemas() {
  const extension = z
    .string()
    .min(1)
    .transform((value) => value.replace(/^\./, '').toLowerCase())

  const server = z
    .object({
      command: z.string().min(1).optional(),
      args: z.array(z.string()).optional(),
      /** File extensions (`ts` or `.ts`). Required for a server that is not a preset. */
      extensions: z.array(extension).min(1).optional(),
      rootMarkers: z.array(z.string().min(1)).optional(),
      initializationOptions: z.unknown().optional(),
      env: z.record(z.string(), z.string()).optional(),
      /** True turns a preset off. */
      disabled: z.boolean().optional(),
    })
    .strict()

  const settings = z
    .object({
      servers: z.record(z.string().min(1), server).default({}),
      /** Append new errors to edit/multi_edit/write results. Default true. */
      feedback: z.boolean().default(true),
      /** How long an edit waits for the server's diagnostics, ms. */
      diagnosticsWaitMs: z.number().int().min(0).max(120_000).default(DEFAULT_DIAGNOSTICS_WAIT_MS),
      /** After a server's first publish for a change, how long without another counts as done, ms. */
      diagnosticsSettleMs: z.number().int().min(0).max(10_000).default(DEFAULT_DIAGNOSTICS_SETTLE_MS),
      /** A server that has not answered `initialize` by then is given up on, ms. */
      initializeTimeoutMs: z.number().int().min(100).default(DEFAULT_INITIALIZE_TIMEOUT_MS),
      /** Definition, references, hover and symbol requests, ms. */
      requestTimeoutMs: z.number().int().min(100).default(DEFAULT_REQUEST_TIMEOUT_MS),
      /** Restarts after crashes per server and root before it stays down. */
      maxRestarts: z.number().int().min(0).max(20).default(DEFAULT_MAX_RESTARTS),
    })
    .strict()
    .superRefine((settings, context) => {
      for (const [id, entry] of Object.entries(settings.servers)) {
        const preset = LSP_PRESETS.some((spec) => spec.id === id)
        if (!preset && !entry.disabled && (entry.command === undefined || entry.extensions === undefined))
          context.addIssue({
            code: 'custom',
            path: ['servers', id],
            message: `lsp.servers.${id} is not a preset, so it needs command and extensions`,
          })
      }
    })

  const config = z.union([z.literal(false), settings])

  return { server, settings, config }
}

/** The section's schemas: one server entry, the settings, and the whole section (`false` or the settings). */
export const lspSchemas = lazySchema(buildLspSchemas)

export type LspSettings = z.infer<ReturnType<typeof buildLspSchemas>['settings']>
export type LspConfig = z.infer<ReturnType<typeof buildLspSchemas>['config']>

/** What `lsp: {}` parses to (a test checks it against the schema). */
export const DEFAULT_LSP_SETTINGS: LspSettings = {
  servers: {},
  feedback: true,
  diagnosticsWaitMs: DEFAULT_DIAGNOSTICS_WAIT_MS,
  diagnosticsSettleMs: DEFAULT_DIAGNOSTICS_SETTLE_MS,
  initializeTimeoutMs: DEFAULT_INITIALIZE_TIMEOUT_MS,
  requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
  maxRestarts: DEFAULT_MAX_RESTARTS,
}

/**
 * The presets with `servers` laid over them (field by field), minus disabled ones; a new
 * name needs `command` and `extensions`. Throws a one-line message for an incomplete entry.
 */
export function resolveServerSpecs(servers: LspSettings['servers']): LspServerSpec[] {
  const specs = new Map<string, LspServerSpec>(LSP_PRESETS.map((spec) => [spec.id, spec]))
  for (const [id, entry] of Object.entries(servers)) {
    const base = specs.get(id)
    if (entry.disabled) {
      specs.delete(id)
      continue
    }
    if (!base && (entry.command === undefined || entry.extensions === undefined))
      throw new Error(`lsp.servers.${id}: a server that is not a preset needs command and extensions`)
    specs.set(id, {
      id,
      command: entry.command ?? base!.command,
      args: entry.args ?? base?.args ?? [],
      extensions: entry.extensions ?? base!.extensions,
      rootMarkers: entry.rootMarkers ?? base?.rootMarkers ?? [],
      env: { ...base?.env, ...entry.env },
      ...(entry.initializationOptions !== undefined
        ? { initializationOptions: entry.initializationOptions }
        : base?.initializationOptions !== undefined
          ? { initializationOptions: base.initializationOptions }
          : {}),
      ...(base?.install !== undefined && entry.command === undefined ? { install: base.install } : {}),
    })
  }
  return [...specs.values()]
}
