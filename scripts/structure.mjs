#!/usr/bin/env node
// The shape of src/: import circles between files and between folders, imports that run up
// the layers, and the largest files. Run by test/structure/structure.test.ts; figures in
// bench/RESULTS.md. `node scripts/structure.mjs [--json] [root]`.
//
// Layers, top to bottom (docs/architecture.md): apps → harness → subsystems → session → core.
// A folder is a unit: src/<name>, and src/apps/<name> for each app. An import is upward
// when it goes to a higher layer; an app importing another app is listed apart (shared
// code belongs in a module both import), except the command line's lazy dispatch to the
// apps it starts. src/apps/shared is that module: on the apps' layer, any app may import
// it, and it imports no app (such an import is listed as app-to-app too, lazy or not). A deliberate exception is an import whose line, or the comment right above it,
// carries a comment with `layer-exception:` and the reason. A leaf module (one that imports
// nothing of dsh's, such as the pure types of llm/types.ts) may be imported from any layer.

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const LAYERS = { core: 0, session: 1, harness: 3 }
const layerOf = (unit) => (unit.startsWith('apps/') ? 4 : (LAYERS[unit] ?? 2))
const LAYER_NAMES = ['core', 'session', 'subsystems', 'harness', 'apps']
const MAX_LINES = 400
/** What the apps share: importing it is not reaching into another app. */
const SHARED = 'apps/shared'

export function measure(root) {
  const src = join(root, 'src')
  const files = []
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) {
        // The browser front end is bundled apart and never imported by the server side.
        if (path !== join(src, 'apps', 'web', 'client')) walk(path)
      } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(path)
    }
  }
  walk(src)
  const rel = (path) => relative(root, path)
  const unitOf = (path) => {
    const parts = relative(src, path).split('/')
    return parts[0] === 'apps' ? `apps/${parts[1]}` : parts.length === 1 ? '(src)' : parts[0]
  }
  const fileEdges = new Map(files.map((file) => [rel(file), new Set()]))
  const unitEdges = new Map()
  const upward = []
  const exceptions = []
  const appToApp = []
  const sizes = []
  const imports = []
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    const lines = text.split('\n')
    sizes.push({ file: rel(file), lines: text.endsWith('\n') ? lines.length - 1 : lines.length })
    lines.forEach((line, index) => {
      for (const match of line.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)['"](\.[^'"]+)['"]/g)) {
        const target = resolve(dirname(file), match[1]).replace(/\.js$/, '.ts')
        if (!fileEdges.has(rel(target))) continue
        fileEdges.get(rel(file)).add(rel(target))
        let marked = /layer-exception:/.test(line)
        // Or in the comment lines right above it.
        for (let above = index - 1; above >= 0 && /^\s*\/\//.test(lines[above]); above--) {
          if (/layer-exception:/.test(lines[above])) marked = true
        }
        imports.push({ file, target, line, index, marked })
      }
    })
  }
  for (const { file, target, line, index, marked } of imports) {
    const from = unitOf(file)
    const to = unitOf(target)
    if (from === to) continue
    // A leaf (a module that imports nothing of dsh's) cannot close a circle, and a marked
    // exception is counted apart: neither ties two folders together.
    if (!marked && fileEdges.get(rel(target)).size > 0) {
      if (!unitEdges.has(from)) unitEdges.set(from, new Set())
      unitEdges.get(from).add(to)
    }
    const where = `${rel(file)}:${index + 1} → ${rel(target)}`
    if (from.startsWith('apps/') && to.startsWith('apps/')) {
      // The command line starts the other apps, lazily: that is its job, not reaching in.
      const dispatch = from === 'apps/cli' && /import\s*\(/.test(line)
      if (to !== SHARED && !dispatch) (marked ? exceptions : appToApp).push(where)
    } else if (layerOf(to) > layerOf(from) && fileEdges.get(rel(target)).size > 0) {
      // A leaf (a module that imports nothing of dsh's, like llm/types.ts) cannot close a
      // circle, so any layer may use it.
      ;(marked ? exceptions : upward).push(`${where} (${LAYER_NAMES[layerOf(from)]} → ${LAYER_NAMES[layerOf(to)]})`)
    }
  }
  sizes.sort((a, b) => b.lines - a.lines)
  return {
    files: files.length,
    fileCircles: circles(fileEdges),
    folderCircles: circles(unitEdges),
    upward,
    appToApp,
    exceptions,
    overLimit: sizes.filter((size) => size.lines > MAX_LINES),
    largest: sizes[0],
  }
}

/** The strongly connected components with more than one member (Tarjan), each sorted. */
function circles(edges) {
  let counter = 0
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const found = []
  const visit = (node) => {
    index.set(node, counter)
    low.set(node, counter++)
    stack.push(node)
    onStack.add(node)
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node), low.get(next)))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)))
    }
    if (low.get(node) === index.get(node)) {
      const component = []
      let member
      do {
        member = stack.pop()
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1) found.push(component.sort())
    }
  }
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node)
  return found.sort((a, b) => a[0].localeCompare(b[0]))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2)
  const json = args.includes('--json')
  const root = resolve(args.find((arg) => arg !== '--json') ?? '.')
  const report = measure(root)
  if (json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
  } else {
    const list = (title, items) => {
      process.stdout.write(`${title}: ${items.length}\n`)
      for (const item of items) process.stdout.write(`  ${Array.isArray(item) ? item.join(' ⇄ ') : item}\n`)
    }
    process.stdout.write(`${report.files} files in src/\n`)
    list('file circles', report.fileCircles)
    list('folder circles', report.folderCircles)
    list('upward imports', report.upward)
    list('app-to-app imports', report.appToApp)
    list('deliberate exceptions', report.exceptions)
    list(
      `files over ${MAX_LINES} lines`,
      report.overLimit.map((size) => `${size.file} ${size.lines}`),
    )
    process.stdout.write(`largest file: ${report.largest.file} ${report.largest.lines}\n`)
  }
}
