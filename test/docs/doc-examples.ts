// Reads README.md and docs/*.md for what they claim about the command line: every `dsh …`
// line of a code block (an example), every `dsh …` code span in prose (a mention), every
// YAML block (a config example), and the field names of the configuration table.

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'shell-quote'

export interface DocExample {
  file: string
  line: number
  source: string
  argv: string[]
  /** Text for stdin when the example redirects it (`dsh run - < task.md`). */
  stdin?: string
  /** The `dsh: …` line the doc shows right after the example, when it shows an error. */
  shownError?: string
  /** Why it is only parsed, from `<!-- examples: parse only: reason -->` before its block. */
  parseOnly?: string
}

export interface DocMention {
  file: string
  line: number
  argv: string[]
}

export interface DocYaml {
  file: string
  line: number
  text: string
}

export interface DocFiles {
  examples: DocExample[]
  mentions: DocMention[]
  yamlBlocks: DocYaml[]
}

/** README.md and every docs/*.md, relative to the repository root. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`)
  return ['README.md', ...docs]
}

const SHELL_FENCES = new Set(['sh', 'bash', 'shell'])
const OUTPUT_FENCES = new Set(['text', 'console', ''])
const PARSE_ONLY = /^<!-- examples: parse only: (.+?) -->$/

export function readDocs(root: string): DocFiles {
  const found: DocFiles = { examples: [], mentions: [], yamlBlocks: [] }
  for (const file of docFiles(root)) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n')
    let fence: string | undefined
    let parseOnly: string | undefined
    let yamlStart = 0
    let previous = ''
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!
      const opening = /^```(\w*)/.exec(line)
      if (opening && fence === undefined) {
        fence = opening[1]!
        parseOnly = PARSE_ONLY.exec(previous.trim())?.[1]
        yamlStart = i + 1
      } else if (line.startsWith('```') && fence !== undefined) {
        if (fence === 'yaml') {
          found.yamlBlocks.push({ file, line: yamlStart + 1, text: lines.slice(yamlStart, i).join('\n') })
        }
        fence = undefined
      } else if (fence !== undefined) {
        const example = exampleOf(line, fence)
        if (example !== undefined) {
          const next = lines[i + 1] ?? ''
          const shownError = OUTPUT_FENCES.has(fence) && next.startsWith('dsh: ') ? next : undefined
          found.examples.push({ file, line: i + 1, source: line, ...example, shownError, parseOnly })
        }
      } else {
        for (const span of line.matchAll(/`(dsh(?: [^`]*)?)`/g)) {
          found.mentions.push({ file, line: i + 1, argv: words(mentionText(span[1]!)).argv })
        }
      }
      if (line.trim() !== '') previous = line
    }
  }
  return found
}

/** A code line that runs dsh: `dsh …` in a shell block, `$ dsh …` (or `host$ dsh …`) in any. */
function exampleOf(line: string, fence: string): { argv: string[]; stdin?: string } | undefined {
  const prompted = /^[\w.-]*\$ (dsh(?: .*)?)$/.exec(line)
  const bare = SHELL_FENCES.has(fence) ? /^(dsh(?: .*)?)$/.exec(line) : null
  const command = prompted?.[1] ?? bare?.[1]
  if (command === undefined) return undefined
  // Annotations the docs put after a command (`← stderr`).
  return words(command.replace(/\s+←.*$/, ''))
}

/**
 * Prose placeholders made concrete: `<id>` → `id`, `[options]` and `...` dropped; a table's
 * escaped pipe is a pipe. `< file` and `> out` (with a space) stay redirections.
 */
function mentionText(text: string): string {
  return text
    .replace(/\\\|/g, '|')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/<(\S[^<>]*)>/g, (_, name: string) => name.replace(/\W+/g, '-') || 'x')
    .replace(/\.\.\.|…/g, '')
}

/** Shell words up to the first operator; `${VAR}` stays as written. */
function words(command: string): { argv: string[]; stdin?: string } {
  const tokens = parse(command, (name) => `\${${name}}`)
  const argv: string[] = []
  let stdin: string | undefined
  for (const token of tokens) {
    if (typeof token === 'string') {
      argv.push(token)
      continue
    }
    if ('op' in token && token.op === '<') stdin = 'say hello\n'
    break
  }
  return { argv: argv.slice(1), stdin }
}

/** The config field paths the configuration page's table documents (`model.name`, `agents[]`). */
export function configTableFields(root: string): string[] {
  const text = readFileSync(join(root, 'docs/configuration.md'), 'utf8')
  const fields: string[] = []
  for (const match of text.matchAll(/^\| ((?:`[^`]+`(?:, )?)+) \|/gm)) {
    for (const field of match[1]!.matchAll(/`([^`]+)`/g)) fields.push(field[1]!)
  }
  return fields
}
