// Markdown with optional YAML front matter (`---` lines), as Agent Skills and Claude Code
// commands write it.

import { yamlLibrary } from '../core/yaml.js'

export interface MarkdownDocument {
  readonly attributes: Record<string, unknown>
  readonly body: string
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/

/** Splits front matter from the body. Front matter that is not a YAML mapping throws. */
export function parseMarkdown(text: string): MarkdownDocument {
  const match = FRONT_MATTER.exec(text)
  if (!match) return { attributes: {}, body: text }
  const parsed: unknown = yamlLibrary().parse(match[1]!)
  if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) {
    throw new Error('front matter is not a YAML mapping')
  }
  return { attributes: (parsed ?? {}) as Record<string, unknown>, body: text.slice(match[0].length) }
}
