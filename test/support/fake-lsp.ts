// A small fake language server for fault and feedback tests (crash, crash during
// initialize, hang, garbage output, publishes for other files): a Node script written to a
// temp folder, speaking LSP framing by hand. It publishes one error
// per line containing BAD, with the document version.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

const SCRIPT = String.raw`
const fs = require('node:fs')
const [mode, stateFile] = process.argv.slice(2)
try {
  fs.writeFileSync(stateFile + '.pid', String(process.pid))
} catch {
  // Read-only under the sandbox.
}
let buffer = Buffer.alloc(0)
const send = (message) => {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }))
  process.stdout.write('Content-Length: ' + body.length + '\r\n\r\n')
  process.stdout.write(body)
}
const publish = (uri, version, text) => {
  const diagnostics = []
  text.split('\n').forEach((line, index) => {
    const at = line.indexOf('BAD')
    if (at >= 0) diagnostics.push({ range: { start: { line: index, character: at }, end: { line: index, character: at + 3 } }, severity: 1, message: 'BAD is not allowed', source: 'fake' })
  })
  send({ method: 'textDocument/publishDiagnostics', params: { uri, version, diagnostics } })
}
// In other-file mode a change also republishes every other open document and one it never
// opened, each with an error, as servers that check a whole project do.
const open = new Set()
const publishOthers = (changed) => {
  const error = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, severity: 1, message: 'broken by a change elsewhere', source: 'fake' }
  for (const uri of [...open, new URL('never-opened.fake', changed).href])
    if (uri !== changed) send({ method: 'textDocument/publishDiagnostics', params: { uri, diagnostics: [error] } })
}
const crashNow = () => {
  if (mode === 'crash-always') process.exit(3)
  if (mode === 'crash-once' && !fs.existsSync(stateFile)) {
    fs.writeFileSync(stateFile, 'crashed')
    process.exit(3)
  }
}
const handle = (message) => {
  if (message.method === 'initialize') {
    if (mode === 'hang') return
    if (mode === 'crash-init' || (mode === 'crash-init-once' && !fs.existsSync(stateFile))) {
      fs.writeFileSync(stateFile, 'crashed')
      process.stderr.write('fake: cannot load the workspace\n')
      process.exit(3)
    }
    if (mode === 'garbage') {
      process.stdout.write('this is no header\r\n\r\n')
      process.stdout.write('Content-Length: 5\r\n\r\n{oops')
    }
    send({ id: message.id, result: { capabilities: { textDocumentSync: 1 } } })
  } else if (message.method === 'textDocument/didOpen' && mode === 'netcheck') {
    // Reports the network interfaces it sees and whether it can write the project.
    const interfaces = fs.readFileSync('/proc/net/dev', 'utf8').split('\n').slice(2).map((l) => l.split(':')[0].trim()).filter(Boolean)
    let writable = true
    try { fs.writeFileSync(stateFile + '.probe', 'x') } catch { writable = false }
    const doc = message.params.textDocument
    send({ method: 'textDocument/publishDiagnostics', params: { uri: doc.uri, version: doc.version, diagnostics: [
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, severity: 3, message: 'interfaces=' + interfaces.join(',') + ' writable=' + writable },
    ] } })
  } else if (message.method === 'textDocument/didOpen') {
    crashNow()
    const doc = message.params.textDocument
    open.add(doc.uri)
    publish(doc.uri, doc.version, doc.text)
  } else if (message.method === 'textDocument/didChange') {
    const doc = message.params.textDocument
    if (mode === 'other-file') publishOthers(doc.uri)
    publish(doc.uri, doc.version, message.params.contentChanges[0].text)
  } else if (message.method === 'shutdown') {
    send({ id: message.id, result: null })
  } else if (message.method === 'exit') {
    process.exit(0)
  } else if (message.id !== undefined) {
    send({ id: message.id, error: { code: -32601, message: 'not supported' } })
  }
}
process.stdin.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk])
  for (;;) {
    const end = buffer.indexOf('\r\n\r\n')
    if (end < 0) return
    const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())?.[1])
    if (buffer.length < end + 4 + length) return
    const body = buffer.subarray(end + 4, end + 4 + length).toString()
    buffer = buffer.subarray(end + 4 + length)
    handle(JSON.parse(body))
  }
})
`

export type FakeLspMode =
  | 'normal'
  | 'crash-once'
  | 'crash-always'
  | 'crash-init'
  | 'crash-init-once'
  | 'hang'
  | 'garbage'
  | 'netcheck'
  | 'other-file'

/**
 * Writes the fake server into `dir`; returns an `lsp.servers` entry for `.fake` files and
 * where the server writes its pid (`<state>.pid`).
 */
export function fakeLspServer(
  dir: string,
  mode: FakeLspMode,
): { entry: Record<string, unknown>; pidFile: string } {
  const script = join(dir, 'fake-lsp.cjs')
  writeFileSync(script, SCRIPT)
  const state = join(dir, 'fake-lsp-state')
  return {
    entry: { command: process.execPath, args: [script, mode, state], extensions: ['fake'], rootMarkers: [] },
    pidFile: `${state}.pid`,
  }
}
