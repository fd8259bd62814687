// Streaming markdown for the terminal: assistant text arrives in chunks; every completed
// source line is rendered once and committed (so the cost per chunk does not grow with
// the answer), the unfinished tail is rendered as a preview. Block structure (headings,
// lists, quotes, fences, tables, rules) is tracked line by line; inline markup comes
// from marked's inline lexer; code is highlighted by highlight.js (highlight.ts).

import { Lexer, type Token } from 'marked'
import wrapAnsi from 'wrap-ansi'
import { toTerminalText } from '../../core/terminal-text.js'
import type { Colors } from '../shared/render.js'
import { type CarriedLines, highlightCodeLine } from './highlight.js'
import { displayWidth, narrowWidth } from './width.js'

const FENCE = /^\s*(`{3,}|~{3,})\s*([^\s`]*)/
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/
const QUOTE = /^\s{0,3}>\s?(.*)$/
const LIST = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/
const TABLE_ROW = /^\s*\|.*\|\s*$/
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/

interface BlockState {
  /**
   * Inside a code block: the open fence (its marker), its language, and the block's lines
   * its next line continues (replaced, never changed in place: a preview works on a copy).
   */
  fence?: { marker: string; language: string; carried: CarriedLines }
  /** Table rows seen so far; a table is drawn when it ends (column widths need every row). */
  table: string[]
}

/** Renders markdown text to terminal lines of at most `width` columns. */
export class MarkdownStream {
  private state: BlockState = { table: [] }
  private tail = ''

  constructor(
    private readonly colors: Colors,
    private readonly width: () => number,
  ) {}

  /** Adds streamed text; returns the rendered lines it completed. */
  push(text: string): string[] {
    this.tail += text
    const end = this.tail.lastIndexOf('\n')
    if (end < 0) return []
    const complete = this.tail.slice(0, end)
    this.tail = this.tail.slice(end + 1)
    if (!complete.includes('\n')) return this.line(complete, this.state) // one line: the usual case
    const out: string[] = []
    for (const line of complete.split('\n')) out.push(...this.line(line, this.state))
    return out
  }

  /** The unfinished part (an open table and the current line) rendered, without consuming it. */
  preview(): string[] {
    const state: BlockState = { ...this.state, table: [...this.state.table] }
    const lines = this.tail === '' ? [] : this.line(this.tail, state)
    return [...lines, ...this.endTable(state)]
  }

  /** Ends the text: renders what is left and resets for the next answer. */
  finish(): string[] {
    const out = this.tail === '' ? [] : this.line(this.tail, this.state)
    out.push(...this.endTable(this.state))
    this.state = { table: [] }
    this.tail = ''
    return out
  }

  private line(source: string, state: BlockState): string[] {
    const safe = toTerminalText(source)
    const raw = safe.includes('\t') ? safe.replace(/\t/g, '    ') : safe
    const { colors } = this
    if (state.fence) {
      const close = FENCE.exec(raw)
      if (close && close[1]!.startsWith(state.fence.marker) && close[2] === '') {
        state.fence = undefined
        return []
      }
      if (!colors.enabled) return [`  ${raw}`]
      const { text, carried } = highlightCodeLine(raw, state.fence.language, state.fence.carried)
      state.fence = { ...state.fence, carried }
      return [`  ${text}`]
    }
    if (TABLE_ROW.test(raw)) {
      state.table.push(raw)
      return []
    }
    const out = this.endTable(state)
    const fence = FENCE.exec(raw)
    if (fence) {
      state.fence = { marker: fence[1]!, language: fence[2] ?? '', carried: [] }
      if (fence[2]) out.push(colors.dim(`  ${fence[2]}`))
      return out
    }
    const heading = HEADING.exec(raw)
    if (heading) {
      const text = this.inline(heading[2]!)
      const styled = heading[1]!.length === 1 ? colors.bold(colors.underline(text)) : colors.bold(text)
      out.push(...this.wrap(colors.magenta(styled), ''))
      return out
    }
    if (RULE.test(raw)) {
      out.push(colors.dim('─'.repeat(Math.min(this.width(), 60))))
      return out
    }
    const quote = QUOTE.exec(raw)
    if (quote) {
      out.push(...this.wrap(colors.italic(this.inline(quote[1]!)), colors.dim('│ ')))
      return out
    }
    const item = LIST.exec(raw)
    if (item) {
      const indent = ' '.repeat(item[1]!.length)
      const marker = /\d/.test(item[2]!) ? item[2]! : '•'
      const body = this.inline(item[3]!)
      const first = `${indent}${colors.cyan(marker)} `
      out.push(...this.wrap(body, first, ' '.repeat(displayWidth(first))))
      return out
    }
    out.push(...this.wrap(this.inline(raw), ''))
    return out
  }

  /** Draws a finished table with aligned columns, or its rows as text when it has no separator. */
  private endTable(state: BlockState): string[] {
    if (state.table.length === 0) return []
    const rows = state.table
    state.table = []
    if (rows.length < 2 || !TABLE_SEPARATOR.test(rows[1]!)) return rows.flatMap((row) => this.wrap(row, ''))
    const cells = rows.filter((_, index) => index !== 1).map(splitRow)
    let columns = 0
    for (const row of cells) columns = Math.max(columns, row.length)
    const { bold, dim } = this.colors
    // Each cell rendered and measured once; a column is at least 3 wide.
    const widths: number[] = new Array(columns).fill(3)
    const rendered = cells.map((row, index) => {
      const out: { text: string; width: number }[] = []
      for (let column = 0; column < columns; column++) {
        const inline = this.inline(row[column] ?? '')
        const text = index === 0 ? bold(inline) : inline
        const width = displayWidth(text)
        widths[column] = Math.max(widths[column]!, width)
        out.push({ text, width })
      }
      return out
    })
    const gap = dim(' │ ')
    const line = (row: { text: string; width: number }[]) =>
      row.map((cell, column) => cell.text + ' '.repeat(widths[column]! - cell.width)).join(gap)
    const separator = dim(widths.map((width) => '─'.repeat(width)).join('─┼─'))
    return [line(rendered[0]!), separator, ...rendered.slice(1).map(line)]
  }

  private wrap(text: string, first: string, rest = first): string[] {
    const room = Math.max(10, this.width() - displayWidth(first))
    // Most lines fit: wrap-ansi would return them unchanged after segmenting every word.
    const width = narrowWidth(text)
    if (width !== undefined && width <= room) return [first + text]
    return wrapAnsi(text, room, { hard: true, trim: false })
      .split('\n')
      .map((line, index) => (index === 0 ? first : rest) + line)
  }

  /** Inline markup (emphasis, code spans, links, strikethrough) as ANSI styles. */
  private inline(text: string): string {
    if (!/[*_`[~<\\]/.test(text)) return text
    return this.tokens(Lexer.lexInline(text))
  }

  private tokens(tokens: Token[]): string {
    const { colors } = this
    let out = ''
    for (const token of tokens) {
      const inner = 'tokens' in token && token.tokens ? this.tokens(token.tokens) : undefined
      switch (token.type) {
        case 'strong':
          out += colors.bold(inner ?? token.text)
          break
        case 'em':
          out += colors.italic(inner ?? token.text)
          break
        case 'codespan':
          out += colors.cyan(token.text)
          break
        case 'del':
          out += colors.strike(inner ?? token.text)
          break
        case 'link':
          out +=
            token.href === token.text
              ? colors.underline(token.href)
              : `${colors.underline(inner ?? token.text)}${colors.dim(` (${token.href})`)}`
          break
        case 'br':
          out += ' '
          break
        case 'escape':
        case 'text':
        case 'html':
          out += inner ?? token.text
          break
        default:
          out += token.raw
      }
    }
    return out
  }
}

function splitRow(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim())
}
