// A highlight.js emitter that colours with SGR sequences instead of writing HTML: it keeps
// highlight.js's scope tree and renders the last line of it, so the chat skips building
// HTML (escaping every character) only to parse it back.

import type { Emitter } from 'highlight.js'

/** SGR foreground colour per highlight.js scope (the first part of a dotted scope decides). */
export const SCOPE_COLORS: ReadonlyMap<string, number> = new Map([
  ['keyword', 35],
  ['selector-tag', 35],
  ['literal', 35],
  ['meta', 35],
  ['string', 32],
  ['regexp', 32],
  ['template-tag', 32],
  ['number', 33],
  ['symbol', 33],
  ['comment', 90],
  ['quote', 90],
  ['title', 34],
  ['section', 34],
  ['built_in', 36],
  ['type', 36],
  ['class', 36],
])

const DEFAULT_COLOR = 39

interface ScopeNode {
  /** `keyword`, `title.function`, `language:xml` (an embedded language); none for the root. */
  scope?: string
  children: (ScopeNode | string)[]
}

/** The colour a scope sets, or undefined when it keeps the colour around it. */
function colorOf(scope: string): number | undefined {
  if (scope.startsWith('language:')) return undefined
  const dot = scope.indexOf('.')
  const name = /^[\w-]+/.exec(dot < 0 ? scope : scope.slice(0, dot))?.[0]
  return name === undefined ? undefined : SCOPE_COLORS.get(name)
}

const sgr = (color: number) => `\u001b[${color}m`

/**
 * Builds the scope tree as highlight.js's own emitter does (its `__emitter` option);
 * `toHTML` returns the last line of the text with SGR colours instead of HTML.
 */
export class AnsiEmitter implements Emitter {
  readonly root: ScopeNode = { children: [] }
  private readonly stack: ScopeNode[] = [this.root]

  addText(text: string): void {
    if (text !== '') this.stack.at(-1)!.children.push(text)
  }

  startScope(scope: string): void {
    this.openNode(scope)
  }

  endScope(): void {
    this.closeNode()
  }

  /** The older names of startScope/endScope, which highlight.js still calls in places. */
  openNode(scope: string): void {
    const node: ScopeNode = { scope, children: [] }
    this.stack.at(-1)!.children.push(node)
    this.stack.push(node)
  }

  closeNode(): void {
    if (this.stack.length > 1) this.stack.pop()
  }

  __addSublanguage(emitter: Emitter, name: string): void {
    const node = (emitter as AnsiEmitter).root
    if (name) node.scope = `language:${name}`
    this.stack.at(-1)!.children.push(node)
  }

  finalize(): void {
    this.stack.length = 1
  }

  /**
   * The text's last line with SGR colours: scopes open at its start are reopened there,
   * and every scope is closed at its end, so the line stands on its own.
   */
  toHTML(): string {
    const colors: number[] = []
    let line = ''
    const walk = (node: ScopeNode | string) => {
      if (typeof node === 'string') {
        const lastBreak = node.lastIndexOf('\n')
        if (lastBreak < 0) line += node
        else line = colors.map(sgr).join('') + node.slice(lastBreak + 1)
        return
      }
      const wraps = Boolean(node.scope)
      if (wraps) {
        const color = colorOf(node.scope!) ?? colors.at(-1) ?? DEFAULT_COLOR
        colors.push(color)
        line += sgr(color)
      }
      for (const child of node.children) walk(child)
      if (wraps) {
        colors.pop()
        line += sgr(colors.at(-1) ?? DEFAULT_COLOR)
      }
    }
    walk(this.root)
    return line
  }
}
