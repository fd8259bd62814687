// The model-facing LSP tools: lsp_diagnostics, lsp_definition, lsp_references, lsp_hover,
// lsp_symbols. Paths follow `read`'s rules (cwd-relative, `~`, hidden paths refused).

import { readFile } from 'node:fs/promises'
import * as z from 'zod'
import { type SchemaOf, toolParameters } from '../core/tool-parameters.js'
import {
  checkedToolPath,
  cwdOf,
  type HiddenPathGuard,
  isRefusal,
  outsideNote,
  type ToolPath,
} from '../tools/fs/index.js'
import type { ToolDefinition, ToolExecution, ToolOutput } from '../tools/index.js'
import {
  bounded,
  byPlace,
  diagnosticLine,
  locationLine,
  MAX_DIAGNOSTICS,
  MAX_HOVER_CHARS,
  MAX_LOCATIONS,
  MAX_SYMBOLS,
  sortDiagnostics,
  symbolLine,
} from './format.js'
import {
  LSP_DEFINITION_DESCRIPTION,
  LSP_DIAGNOSTICS_DESCRIPTION,
  LSP_HOVER_DESCRIPTION,
  LSP_REFERENCES_DESCRIPTION,
  LSP_SYMBOLS_DESCRIPTION,
} from './prompts.js'
import type { LspAnswer, LspPosition, LspService } from './service.js'
import type { LspLocation } from './types.js'

// Shared by the schemas below, built with them.
const filePath = () =>
  z.string().min(1).describe('The file (absolute, or relative to the working directory).')

const positionParameters = toolParameters('lsp_position', () =>
  z.object({
    file_path: filePath(),
    line: z.number().int().positive().optional().describe('1-based line.'),
    column: z.number().int().positive().optional().describe('1-based column (characters).'),
    symbol: z.string().min(1).optional().describe('A symbol name in the file, instead of line and column.'),
  }),
)

const diagnosticsParameters = toolParameters('lsp_diagnostics', () =>
  z.object({ file_path: filePath().optional() }),
)

const symbolsParameters = toolParameters('lsp_symbols', () =>
  z.object({
    file_path: filePath(),
    query: z.string().min(1).optional().describe('Search the whole project for symbols matching this.'),
  }),
)

type Lsp = () => LspService | undefined

interface Positioned {
  service: LspService
  cwd: string
  path: ToolPath
  at: LspPosition
}

export function createLspTools(lsp: Lsp, hidden: HiddenPathGuard): ToolDefinition[] {
  const target = (execution: ToolExecution, path: string) =>
    checkedToolPath({ hidden }, execution, path, 'read')
  /** A position tool's service, checked file and position, or the output that ends the call. */
  const positioned = async (
    execution: ToolExecution,
    args: z.infer<SchemaOf<typeof positionParameters>>,
  ): Promise<Positioned | ToolOutput> => {
    const service = lsp()
    if (!service) return off()
    const cwd = cwdOf(execution)
    const path = target(execution, args.file_path)
    if (isRefusal(path)) return path
    const at = await positionOf(service, path, cwd, args)
    if (typeof at === 'string') return { content: at, isError: true }
    return { service, cwd, path, at }
  }
  return [
    tool({
      name: 'lsp_diagnostics',
      description: LSP_DIAGNOSTICS_DESCRIPTION,
      get parameters() {
        return diagnosticsParameters.schema()
      },
      parametersJsonSchema: diagnosticsParameters.jsonSchema,
      async execute(args, execution) {
        const service = lsp()
        if (!service) return off()
        const cwd = cwdOf(execution)
        if (args.file_path === undefined) {
          const all = sortDiagnostics(service.projectDiagnostics(cwd))
          if (all.length === 0)
            return { content: 'No diagnostics reported for files the language servers have seen.' }
          return { content: bounded(all, MAX_DIAGNOSTICS, (d) => diagnosticLine(cwd, d)).join('\n') }
        }
        const path = target(execution, args.file_path)
        if (isRefusal(path)) return path
        const answer = await guarded(
          () => service.fileDiagnostics(path.absolute, cwd, execution.signal),
          path,
        )
        return render(answer, path, (list) =>
          list.length === 0
            ? `No errors or warnings in ${path.display}.`
            : bounded(sortDiagnostics(list), MAX_DIAGNOSTICS, (d) => diagnosticLine(cwd, d)).join('\n'),
        )
      },
    }),
    positionTool(
      'lsp_definition',
      LSP_DEFINITION_DESCRIPTION,
      (s, p, cwd, at) => s.definition(p, cwd, at),
      'No definition found.',
    ),
    positionTool(
      'lsp_references',
      LSP_REFERENCES_DESCRIPTION,
      (s, p, cwd, at) => s.references(p, cwd, at),
      'No references found.',
    ),
    tool({
      name: 'lsp_hover',
      description: LSP_HOVER_DESCRIPTION,
      get parameters() {
        return positionParameters.schema()
      },
      parametersJsonSchema: positionParameters.jsonSchema,
      async execute(args, execution) {
        const where = await positioned(execution, args)
        if (!('at' in where)) return where
        const { service, cwd, path, at } = where
        const answer = await guarded(() => service.hover(path.absolute, cwd, at), path)
        return render(answer, path, (text) =>
          text === ''
            ? 'Nothing to show here.'
            : text.length > MAX_HOVER_CHARS
              ? `${text.slice(0, MAX_HOVER_CHARS)} …`
              : text,
        )
      },
    }),
    tool({
      name: 'lsp_symbols',
      description: LSP_SYMBOLS_DESCRIPTION,
      get parameters() {
        return symbolsParameters.schema()
      },
      parametersJsonSchema: symbolsParameters.jsonSchema,
      async execute(args, execution) {
        const service = lsp()
        if (!service) return off()
        const cwd = cwdOf(execution)
        const path = target(execution, args.file_path)
        if (isRefusal(path)) return path
        const answer = await guarded(
          () =>
            args.query === undefined
              ? service.documentSymbols(path.absolute, cwd)
              : service.workspaceSymbols(path.absolute, cwd, args.query),
          path,
        )
        return render(answer, path, (symbols) => {
          // Document symbols keep the file's order (an outline); workspace results are sorted.
          const list =
            args.query === undefined
              ? symbols
              : [...symbols].sort((a, b) => byPlace(a, b) || (a.name < b.name ? -1 : 1))
          return list.length === 0
            ? 'No symbols found.'
            : bounded(list, MAX_SYMBOLS, (s) => symbolLine(cwd, s)).join('\n')
        })
      },
    }),
  ]

  function positionTool(
    name: string,
    description: string,
    run: (
      service: LspService,
      path: string,
      cwd: string,
      at: LspPosition,
    ) => Promise<LspAnswer<LspLocation[]>>,
    empty: string,
  ): ToolDefinition {
    return tool({
      name,
      description,
      get parameters() {
        return positionParameters.schema()
      },
      parametersJsonSchema: positionParameters.jsonSchema,
      async execute(args, execution) {
        const where = await positioned(execution, args)
        if (!('at' in where)) return where
        const { service, cwd, path, at } = where
        const answer = await guarded(() => run(service, path.absolute, cwd, at), path)
        if (!answer.ok) return render(answer, path, () => '')
        const places = dedupe(answer.value).sort(byPlace)
        const files = new Map<string, Promise<string[] | undefined>>()
        const lines = await Promise.all(
          places
            .slice(0, MAX_LOCATIONS)
            .map(async (place) => locationLine(cwd, place, await lineText(files, place))),
        )
        if (places.length > MAX_LOCATIONS) lines.push(`… ${places.length - MAX_LOCATIONS} more not shown`)
        return render({ ...answer, value: lines }, path, (list) =>
          list.length === 0 ? empty : list.join('\n'),
        )
      },
    })
  }
}

/** Erases a tool's parameter type for the common list (the registry validates arguments). */
function tool<Schema extends z.ZodObject>(definition: ToolDefinition<Schema>): ToolDefinition {
  return definition as unknown as ToolDefinition
}

function off(): ToolOutput {
  return { content: 'Code intelligence is off (config lsp: false).', isError: true }
}

/** A thrown error (unreadable file, ...) as a note, so a tool never fails the turn. */
async function guarded<T>(run: () => Promise<LspAnswer<T>>, path: ToolPath): Promise<LspAnswer<T>> {
  try {
    return await run()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const note =
      code === 'ENOENT' ? `${path.display} does not exist` : `${path.display}: ${(error as Error).message}`
    return { ok: false, note, repeated: false }
  }
}

function render<T>(answer: LspAnswer<T>, path: ToolPath, show: (value: T) => string): ToolOutput {
  if (!answer.ok) return { content: answer.note }
  const notes = answer.notes.map((note) => `(${note})`)
  return { content: [...notes, show(answer.value) + outsideNote(path)].join('\n') }
}

/** The 0-based LSP position from line/column or a symbol name; a string says what is wrong. */
async function positionOf(
  service: LspService,
  path: ToolPath,
  cwd: string,
  args: { line?: number | undefined; column?: number | undefined; symbol?: string | undefined },
): Promise<LspPosition | string> {
  if (args.line !== undefined) return { line: args.line - 1, character: (args.column ?? 1) - 1 }
  if (args.symbol === undefined) return 'Give line and column, or symbol.'
  const name = args.symbol
  const symbols = await service.documentSymbols(path.absolute, cwd).catch(() => undefined)
  const found = symbols?.ok ? symbols.value.find((s) => s.name === name) : undefined
  if (found) return { line: found.line - 1, character: found.column - 1 }
  // Not a declared symbol of the file (a use of an import, say): its first whole-word occurrence.
  let text: string
  try {
    text = await readFile(path.absolute, 'utf8')
  } catch {
    return `${path.display} cannot be read`
  }
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const lines = text.split('\n')
  for (let line = 0; line < lines.length; line++) {
    const match = new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`).exec(lines[line]!)
    if (match) return { line, character: match.index }
  }
  return `${name} does not occur in ${path.display}`
}

function dedupe(places: readonly LspLocation[]): LspLocation[] {
  const seen = new Set<string>()
  return places.filter((p) => {
    const key = `${p.path}:${p.line}:${p.column}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** The source line at `place`, each file read once per call. */
async function lineText(
  files: Map<string, Promise<string[] | undefined>>,
  place: LspLocation,
): Promise<string | undefined> {
  let lines = files.get(place.path)
  if (!lines) {
    lines = readFile(place.path, 'utf8').then(
      (text) => text.split('\n'),
      () => undefined, // Unreadable (gone, outside reach): the place alone is shown.
    )
    files.set(place.path, lines)
  }
  return (await lines)?.[place.line - 1]
}
