// Editing the `mcpServers` map of a YAML config file by splicing text, so every other
// byte (comments, spacing, key order) stays as the user wrote it. Each splice is checked
// by parsing the result; when it does not say what was meant, the file is re-printed instead.

import { isDeepStrictEqual } from 'node:util'
import type { Document, Pair, Scalar, YAMLMap } from 'yaml'
import { type YamlLibrary, yamlLibrary } from '../core/yaml.js'

/** The YAML document of `text`; its first error is thrown as `describe(message)`. */
export function parseConfigYaml(text: string, describe: (message: string) => Error): Document {
  const document = yamlLibrary().parseDocument(text)
  if (document.errors.length > 0) throw describe(document.errors[0]!.message.split('\n')[0]!)
  return document
}

/** `text` with `mcpServers.<name>` added (the caller checked that it is absent). */
export function addServerToYaml(text: string, name: string, entry: unknown): string {
  const yaml = yamlLibrary()
  const document = yaml.parseDocument(text)
  const expected = document.clone()
  if (expected.contents === null) expected.contents = expected.createNode({}) as never
  expected.setIn(['mcpServers', name], expected.createNode(entry))
  const wanted = expected.toJS()
  const block = (value: unknown, indent: number) =>
    yaml
      .stringify(value)
      .split('\n')
      .map((line) => (line === '' ? line : `${' '.repeat(indent)}${line}`))
      .join('\n')
  let spliced: string | undefined
  const servers = document.get('mcpServers', true)
  if ((document.contents === null || yaml.isMap(document.contents)) && servers === undefined) {
    spliced = `${withNewline(text)}${block({ mcpServers: { [name]: entry } }, 0)}`
  } else if (yaml.isMap(servers) && !servers.flow && servers.items.length > 0 && servers.range) {
    const at = lineEndAfter(text, servers.range[1])
    const indent = column(text, (servers.items[0]!.key as Scalar).range![0])
    spliced = `${withNewline(text.slice(0, at))}${block({ [name]: entry }, indent)}${text.slice(at)}`
  }
  return checked(yaml, spliced, wanted) ?? String(expected)
}

/** `text` without `mcpServers.<name>` (the caller checked that it is there); an emptied map goes too. */
export function removeServerFromYaml(text: string, name: string): string {
  const yaml = yamlLibrary()
  const document = yaml.parseDocument(text)
  const expected = document.clone()
  expected.deleteIn(['mcpServers', name])
  const left = expected.get('mcpServers', true)
  if (yaml.isMap(left) && left.items.length === 0) expected.delete('mcpServers')
  const wanted = expected.toJS()
  let spliced: string | undefined
  const root = document.contents
  const servers = document.get('mcpServers', true)
  if (yaml.isMap(root) && yaml.isMap(servers) && !servers.flow) {
    const items = servers.items as Pair<Scalar, unknown>[]
    const index = items.findIndex((pair) => pair.key?.value === name)
    const pair = items[index]
    if (items.length === 1) {
      const outer = (root as YAMLMap<Scalar, unknown>).items.find((item) => item.key?.value === 'mcpServers')
      if (outer?.key?.range && servers.range) {
        spliced = cut(text, lineStart(text, outer.key.range[0]), lineEndAfter(text, servers.range[1]))
      }
    } else if (pair?.key?.range && servers.range) {
      const next = items[index + 1]?.key?.range
      const end = next ? lineStart(text, next[0]) : lineEndAfter(text, servers.range[1])
      spliced = cut(text, lineStart(text, pair.key.range[0]), end)
    }
  }
  return checked(yaml, spliced, wanted) ?? String(expected)
}

/** `spliced` when it parses cleanly to `wanted`. */
function checked(yaml: YamlLibrary, spliced: string | undefined, wanted: unknown): string | undefined {
  if (spliced === undefined) return undefined
  const reparsed = yaml.parseDocument(spliced)
  // A file left with comments only reads as null, which the config loader takes as `{}`.
  const value = reparsed.toJS() ?? {}
  if (reparsed.errors.length > 0 || !isDeepStrictEqual(value, wanted)) return undefined
  return spliced
}

function cut(text: string, start: number, end: number): string {
  return text.slice(0, start) + text.slice(end)
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1
}

/** The offset just past the line holding `offset - 1` (the end of the node that ends there). */
function lineEndAfter(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === '\n') return offset
  const newline = text.indexOf('\n', offset)
  return newline < 0 ? text.length : newline + 1
}

function column(text: string, offset: number): number {
  return offset - lineStart(text, offset)
}
