// HTML to Markdown in one pass over htmlparser2's event stream: no DOM is built, so a
// multi-megabyte page converts in linear time (see bench/web-fetch.bench.ts for why the
// DOM-based converters were not used). Scripts, styles and other non-content are dropped.

import { Parser } from 'htmlparser2'
import { ABSOLUTE_HTTP, BLOCKS, collapse, isSpace, SKIPPED, safeUrl } from './html-text.js'

export interface ConvertedPage {
  /** The first <title>, whitespace-collapsed; '' when the page has none. */
  title: string
  markdown: string
}

type Container = { kind: 'quote' } | { kind: 'list'; ordered: boolean; index: number }

interface TableState {
  rows: number
  cells: number
  headerRow: boolean
}

/**
 * Elements open at once beyond which conversion stops. htmlparser2 keeps its open elements
 * with `unshift`, so each one costs the depth: 320,000 nested <div>s took a minute. Real
 * pages stay far below (Chromium's parser caps the tree at 512).
 */
export const MAX_NESTING = 1024

/** Characters converted between turns of the event loop (see `convertHtml`). */
const SLICE_CHARS = 256 * 1024

/** Converts a whole HTML document. `baseUrl` resolves relative links and images. */
export function htmlToMarkdown(html: string, baseUrl?: string): ConvertedPage {
  const converter = new MarkdownConverter(baseUrl)
  converter.write(html)
  return converter.end()
}

/**
 * `htmlToMarkdown` in slices, yielding to the event loop between them, so the fetch's
 * deadline and Ctrl-C (`signal`) stop a page that is slow to convert.
 */
export async function convertHtml(
  html: string,
  baseUrl: string,
  signal: AbortSignal,
): Promise<ConvertedPage> {
  const converter = new MarkdownConverter(baseUrl)
  for (let at = 0; at < html.length; at += SLICE_CHARS) {
    signal.throwIfAborted()
    converter.write(html.slice(at, at + SLICE_CHARS))
    await new Promise((resolve) => setImmediate(resolve))
  }
  signal.throwIfAborted()
  return converter.end()
}

/** An incremental converter: feed decoded HTML text in chunks, then `end()`. */
export class MarkdownConverter {
  /** The Markdown so far; appending to one string is cheaper than joining many pieces. */
  private out = ''
  private readonly parser: Parser
  private readonly base: URL | undefined
  private title: string | undefined
  private titleParts: string[] | undefined
  /** Depth inside a skipped element (0 = not skipping). */
  private skipDepth = 0
  private preDepth = 0
  private cellDepth = 0
  /** Newlines owed before the next text (0, 1 or 2). */
  private pendingBreaks = 0
  private atLineStart = true
  private hasOutput = false
  /** The last emitted inline character was whitespace (or we are at a line start). */
  private lastWasSpace = true
  private listMarker: string | undefined
  private readonly containers: Container[] = []
  private readonly tables: TableState[] = []
  /** Per open <a>: the link target to close with, or undefined when the link is dropped. */
  private readonly links: (string | undefined)[] = []
  /** Elements open in the parser (a void element opens and closes at once). */
  private nesting = 0
  /** Conversion stopped at MAX_NESTING: the rest of the page is not read. */
  private stopped = false

  constructor(baseUrl?: string) {
    this.base = baseUrl ? safeUrl(baseUrl) : undefined
    this.parser = new Parser(
      {
        onopentag: (name, attributes) => {
          this.nesting += 1
          if (this.nesting > MAX_NESTING) this.stop()
          else this.open(name, attributes)
        },
        onclosetag: (name) => {
          this.nesting -= 1
          this.close(name)
        },
        ontext: (text) => this.text(text),
      },
      { decodeEntities: true, lowerCaseTags: true },
    )
  }

  write(html: string): void {
    if (!this.stopped) this.parser.write(html)
  }

  end(): ConvertedPage {
    if (!this.stopped) this.parser.end()
    return { title: this.title ?? '', markdown: this.out.trim() }
  }

  /** Stops at an element nested too deep: what came before is kept, with a note. */
  private stop(): void {
    this.stopped = true
    this.parser.pause()
    this.block(2)
    this.inline(`[dsh stopped converting here: the page nests elements more than ${MAX_NESTING} deep]`)
  }

  private open(name: string, attributes: Record<string, string>): void {
    if (this.skipDepth > 0 || SKIPPED.has(name)) {
      this.skipDepth += 1
      return
    }
    switch (name) {
      case 'title':
        if (this.title === undefined) this.titleParts = []
        return
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        this.block(2)
        this.inline(`${'#'.repeat(Number(name[1]))} `)
        this.lastWasSpace = true
        return
      case 'br':
        if (this.preDepth > 0) this.raw('\n')
        else if (this.cellDepth > 0) this.inline(' ')
        else this.lineBreak()
        return
      case 'hr':
        this.block(2)
        this.inline('---')
        this.block(2)
        return
      case 'pre':
        this.block(2)
        this.inline('```')
        this.raw('\n')
        this.preDepth += 1
        return
      case 'code':
        if (this.preDepth === 0) this.inline('`')
        return
      case 'strong':
      case 'b':
        this.inline('**')
        return
      case 'em':
      case 'i':
        this.inline('_')
        return
      case 'a': {
        const href = this.resolve(attributes.href)
        this.links.push(href)
        if (href !== undefined) this.inline('[')
        return
      }
      case 'img': {
        const src = this.resolve(attributes.src)
        const alt = collapse(attributes.alt ?? '').trim()
        if (src !== undefined) this.inline(`![${alt}](${src})`)
        else if (alt) this.inline(alt)
        return
      }
      case 'blockquote':
        this.block(2)
        this.containers.push({ kind: 'quote' })
        return
      case 'ul':
      case 'ol':
        this.block(this.innermostList() ? 1 : 2)
        this.containers.push({
          kind: 'list',
          ordered: name === 'ol',
          index: Number(attributes.start ?? 1) || 1,
        })
        return
      case 'li': {
        this.block(1)
        const list = this.innermostList()
        this.listMarker = list?.ordered ? `${list.index++}. ` : '- '
        return
      }
      case 'tr':
        if (this.cellDepth > 0) return
        this.block(1)
        this.tables.at(-1)!.cells = 0
        this.tables.at(-1)!.headerRow = false
        return
      case 'th':
      case 'td': {
        const table = this.tables.at(-1)
        if (!table || this.cellDepth > 0) return
        this.inline(table.cells === 0 ? '| ' : this.lastWasSpace ? '| ' : ' | ')
        this.lastWasSpace = true
        table.cells += 1
        if (name === 'th') table.headerRow = true
        this.cellDepth += 1
        return
      }
      default:
        if (name === 'table') this.tables.push({ rows: 0, cells: 0, headerRow: false })
        if (BLOCKS.has(name)) this.block(name === 'dd' || name === 'dt' ? 1 : 2)
    }
  }

  private close(name: string): void {
    if (this.skipDepth > 0) {
      this.skipDepth -= 1
      return
    }
    switch (name) {
      case 'title':
        if (this.titleParts) this.title = collapse(this.titleParts.join('')).trim()
        this.titleParts = undefined
        return
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        this.block(2)
        return
      case 'pre':
        if (this.preDepth === 0) return
        this.preDepth -= 1
        if (!this.atLineStart) this.raw('\n')
        this.raw('```')
        this.atLineStart = false
        this.block(2)
        return
      case 'code':
        if (this.preDepth === 0) this.inline('`')
        return
      case 'strong':
      case 'b':
        this.inline('**')
        return
      case 'em':
      case 'i':
        this.inline('_')
        return
      case 'a': {
        const href = this.links.pop()
        if (href !== undefined) this.inline(`](${href})`)
        return
      }
      case 'blockquote':
      case 'ul':
      case 'ol':
        this.containers.pop()
        this.block(this.innermostList() ? 1 : 2)
        return
      case 'li':
        this.listMarker = undefined
        this.block(1)
        return
      case 'th':
      case 'td':
        if (this.cellDepth > 0) this.cellDepth -= 1
        return
      case 'tr': {
        const table = this.tables.at(-1)
        if (!table || this.cellDepth > 0 || table.cells === 0) return
        this.inline(this.lastWasSpace ? '|' : ' |')
        if (table.rows === 0) {
          this.lineBreak()
          this.inline(`|${' --- |'.repeat(table.cells)}`)
        }
        table.rows += 1
        this.block(1)
        return
      }
      default:
        if (name === 'table') this.tables.pop()
        if (BLOCKS.has(name)) this.block(name === 'dd' || name === 'dt' ? 1 : 2)
    }
  }

  private text(text: string): void {
    if (this.skipDepth > 0) return
    if (this.titleParts) {
      this.titleParts.push(text)
      return
    }
    if (this.preDepth > 0) {
      this.raw(text)
      return
    }
    let collapsed = collapse(text)
    if (this.lastWasSpace || this.atLineStart || this.pendingBreaks > 0) collapsed = collapsed.trimStart()
    if (collapsed === '') return
    this.inline(collapsed)
  }

  /** Asks for a block boundary: `breaks` newlines before the next text (none at the start). */
  private block(breaks: 1 | 2): void {
    if (this.cellDepth > 0) {
      if (!this.lastWasSpace) this.inline(' ')
      return
    }
    if (this.hasOutput && breaks > this.pendingBreaks) this.pendingBreaks = breaks
  }

  private lineBreak(): void {
    if (!this.hasOutput) return
    this.raw('\n')
    this.atLineStart = true
    this.lastWasSpace = true
  }

  /** Emits inline text, first paying owed newlines and the line prefix. */
  private inline(text: string): void {
    if (this.pendingBreaks > 0) {
      this.out += this.pendingBreaks === 2 ? '\n\n' : '\n'
      this.pendingBreaks = 0
      this.atLineStart = true
    }
    if (this.atLineStart) {
      if (this.containers.length > 0) this.out += this.linePrefix()
      this.atLineStart = false
    }
    this.out += text
    this.hasOutput = true
    this.lastWasSpace = text === '' ? this.lastWasSpace : isSpace(text.charCodeAt(text.length - 1))
  }

  /** Emits text as it is (inside <pre>), paying owed newlines first. */
  private raw(text: string): void {
    if (this.pendingBreaks > 0) this.inline('')
    this.out += text
    this.hasOutput = true
    this.atLineStart = text.endsWith('\n')
    this.lastWasSpace = true
  }

  private linePrefix(): string {
    let prefix = ''
    let lists = 0
    for (const container of this.containers) if (container.kind === 'list') lists += 1
    let seenLists = 0
    for (const container of this.containers) {
      if (container.kind === 'quote') prefix += '> '
      else {
        seenLists += 1
        if (seenLists < lists) prefix += container.ordered ? '   ' : '  '
        else if (this.listMarker !== undefined) {
          prefix += this.listMarker
          this.listMarker = undefined
        } else prefix += container.ordered ? '   ' : '  '
      }
    }
    return prefix
  }

  private innermostList(): (Container & { kind: 'list' }) | undefined {
    for (let i = this.containers.length - 1; i >= 0; i--) {
      const container = this.containers[i]!
      if (container.kind === 'list') return container
    }
    return undefined
  }

  /** An absolute http(s)/mailto URL for a link target, or undefined to drop the link. */
  private resolve(href: string | undefined): string | undefined {
    if (!href || href.startsWith('#') || href.startsWith('data:')) return undefined
    // Absolute http(s) targets are kept as written: parsing every link would double the cost.
    if (ABSOLUTE_HTTP.test(href)) return href
    const url = safeUrl(href, this.base)
    if (!url || !['http:', 'https:', 'mailto:'].includes(url.protocol)) return undefined
    return url.href
  }
}
