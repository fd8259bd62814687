// Run by lsp.bench.ts in a fresh process (--expose-gc): a full harness's RSS without language
// servers, then with typescript-language-server and pyright running; and each server group's RSS.

import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveConfig, validateConfig } from '../src/config/index.js'
import { createHarness } from '../src/harness/index.js'

const [root, tsFile, pyFile, tsls, pyright] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
]

function rss(): number {
  globalThis.gc?.()
  globalThis.gc?.()
  return process.memoryUsage().rss
}

/** RSS of every live process in group `pgid`, summed. */
function groupRss(pgid: number): number {
  let total = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, 'latin1'))?.[1]
      total += Number(kb ?? 0) * 1024
    } catch {
      // Ended while we looked.
    }
  }
  return total
}

const home = mkdtempSync(join(tmpdir(), 'dsh-bench-lsp-home-'))
const file = validateConfig('bench', {
  dshHome: home,
  persistence: { backend: 'memory' },
  lsp: {
    servers: { typescript: { command: tsls }, pyright: { command: pyright } },
    diagnosticsWaitMs: 60_000,
    initializeTimeoutMs: 120_000,
  },
})
const harness = await createHarness({ config: resolveConfig(file, {}) })
await harness.agents.create({ sessionId: 'bench-lsp', meta: { cwd: root } })
await new Promise((resolve) => setTimeout(resolve, 500))
const without = rss()
for (const path of [tsFile, pyFile]) {
  const answer = await harness.ctx.lsp.fileDiagnostics(path, root)
  if (!answer.ok) throw new Error(answer.note)
}
await new Promise((resolve) => setTimeout(resolve, 500))
const withServers = rss()
const servers = Object.fromEntries(harness.ctx.lsp.status().map((s) => [s.id, s.pid ? groupRss(s.pid) : 0]))
await harness.dispose()
console.log(JSON.stringify({ without, withServers, servers }))
