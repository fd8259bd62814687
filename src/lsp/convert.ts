// LSP shapes to dsh's (absolute paths, 1-based lines and columns), type-only imports so the
// libraries stay unloaded. Columns are UTF-16 code units, as JavaScript strings count them.

import { fileURLToPath, pathToFileURL } from 'node:url'
import type {
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  MarkedString,
  SymbolInformation,
  WorkspaceSymbol,
} from 'vscode-languageserver-protocol'
import type { LspDiagnostic, LspLocation, LspSeverity, LspSymbol } from './types.js'

const SEVERITIES: Readonly<Record<number, LspSeverity>> = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' }

/** SymbolKind 1..26 (LSP 3.17). */
const SYMBOL_KINDS = [
  'file',
  'module',
  'namespace',
  'package',
  'class',
  'method',
  'property',
  'field',
  'constructor',
  'enum',
  'interface',
  'function',
  'variable',
  'constant',
  'string',
  'number',
  'boolean',
  'array',
  'object',
  'key',
  'null',
  'enum member',
  'struct',
  'event',
  'operator',
  'type parameter',
] as const

export function uriOf(path: string): string {
  return pathToFileURL(path).href
}

/** A file path from a `file:` URI; undefined for other schemes. */
export function pathOfUri(uri: string): string | undefined {
  return uri.startsWith('file:') ? fileURLToPath(uri) : undefined
}

export function toDiagnostic(path: string, diagnostic: Diagnostic): LspDiagnostic {
  return {
    path,
    line: diagnostic.range.start.line + 1,
    column: diagnostic.range.start.character + 1,
    // A missing severity is the client's call; the spec leaves it open, errors are the safe reading.
    severity: SEVERITIES[diagnostic.severity ?? 1] ?? 'error',
    message: typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value,
    ...(diagnostic.source !== undefined ? { source: diagnostic.source } : {}),
    ...(diagnostic.code !== undefined ? { code: String(diagnostic.code) } : {}),
  }
}

/** Definition results: a Location, an array of them, or LocationLinks. */
export function toLocations(
  result: Location | Location[] | LocationLink[] | null | undefined,
): LspLocation[] {
  if (!result) return []
  const list = Array.isArray(result) ? result : [result]
  return list.flatMap((item) => {
    const uri = 'targetUri' in item ? item.targetUri : item.uri
    const range = 'targetUri' in item ? item.targetSelectionRange : item.range
    const path = pathOfUri(uri)
    return path === undefined ? [] : [{ path, line: range.start.line + 1, column: range.start.character + 1 }]
  })
}

export function symbolKind(kind: number): string {
  return SYMBOL_KINDS[kind - 1] ?? `kind ${kind}`
}

/** Document symbols, flattened depth first with the parent's name as container. */
export function toDocumentSymbols(
  path: string,
  result: (DocumentSymbol | SymbolInformation)[] | null | undefined,
): LspSymbol[] {
  const out: LspSymbol[] = []
  const walk = (symbols: (DocumentSymbol | SymbolInformation)[], container?: string) => {
    for (const symbol of symbols) {
      if ('location' in symbol) {
        out.push(...toWorkspaceSymbols([symbol]))
        continue
      }
      out.push({
        path,
        line: symbol.selectionRange.start.line + 1,
        column: symbol.selectionRange.start.character + 1,
        name: symbol.name,
        kind: symbolKind(symbol.kind),
        ...(container !== undefined ? { container } : {}),
      })
      if (symbol.children) walk(symbol.children, symbol.name)
    }
  }
  walk(result ?? [])
  return out
}

export function toWorkspaceSymbols(
  result: (SymbolInformation | WorkspaceSymbol)[] | null | undefined,
): LspSymbol[] {
  return (result ?? []).flatMap((symbol) => {
    const path = pathOfUri(symbol.location.uri)
    if (path === undefined) return []
    const start = 'range' in symbol.location ? symbol.location.range.start : { line: 0, character: 0 }
    return [
      {
        path,
        line: start.line + 1,
        column: start.character + 1,
        name: symbol.name,
        kind: symbolKind(symbol.kind),
        ...(symbol.containerName ? { container: symbol.containerName } : {}),
      },
    ]
  })
}

/** Hover contents as plain text (markdown kept as written). */
export function hoverText(hover: Hover | null | undefined): string {
  if (!hover) return ''
  const one = (part: MarkedString | { kind: string; value: string }): string =>
    typeof part === 'string'
      ? part
      : 'language' in part
        ? `\`\`\`${part.language}\n${part.value}\n\`\`\``
        : part.value
  const contents = hover.contents
  return (Array.isArray(contents) ? contents.map(one) : [one(contents)]).join('\n\n').trim()
}
