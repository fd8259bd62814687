// How LSP results read in tool output: paths relative to the cwd, 1-based positions,
// stable order (path, line, column), and bounded lists with a count of what was left out.

import { relative } from 'node:path'
import type { LspDiagnostic, LspLocation, LspSymbol } from './types.js'

export const MAX_DIAGNOSTICS = 100
export const MAX_LOCATIONS = 100
export const MAX_SYMBOLS = 200
export const MAX_HOVER_CHARS = 4000

export function displayOf(cwd: string, path: string): string {
  const rel = relative(cwd, path)
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2, hint: 3 } as const

export function byPlace(a: LspLocation, b: LspLocation): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.column - b.column
}

export function sortDiagnostics(list: readonly LspDiagnostic[]): LspDiagnostic[] {
  return [...list].sort(
    (a, b) =>
      byPlace(a, b) ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  )
}

export function diagnosticLine(cwd: string, d: LspDiagnostic): string {
  const code = d.code !== undefined ? ` [${d.source ? `${d.source} ` : ''}${d.code}]` : ''
  return `${displayOf(cwd, d.path)}:${d.line}:${d.column}: ${d.severity}: ${oneLine(d.message)}${code}`
}

/** Lines of `items` up to `max`, plus a note for the rest. */
export function bounded<T>(items: readonly T[], max: number, line: (item: T) => string): string[] {
  const lines = items.slice(0, max).map(line)
  if (items.length > max) lines.push(`… ${items.length - max} more not shown`)
  return lines
}

export function locationLine(cwd: string, place: LspLocation, text?: string): string {
  const at = `${displayOf(cwd, place.path)}:${place.line}:${place.column}`
  return text ? `${at}: ${text.trim().slice(0, 200)}` : at
}

export function symbolLine(cwd: string, symbol: LspSymbol): string {
  const inside = symbol.container ? ` (in ${symbol.container})` : ''
  return `${symbol.kind} ${symbol.name}${inside} — ${displayOf(cwd, symbol.path)}:${symbol.line}:${symbol.column}`
}

export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim()
}

/** "1 error, 2 warnings" style counts of diagnostics (errors and warnings only). */
export function countLine(list: readonly LspDiagnostic[]): string {
  const errors = list.filter((d) => d.severity === 'error').length
  const warnings = list.filter((d) => d.severity === 'warning').length
  const part = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
  return `${part(errors, 'error')}, ${part(warnings, 'warning')}`
}
