// Experiment: time from spawning `dsh run hi` to the request reaching a loopback model,
// and the child's main-thread CPU at that moment (/proc/<pid>/schedstat), for several
// ways of loading the CLI, interleaved with `node -e 0`.
// Usage: node measure-start.mjs N [name=path/to/bin.js ...] (default: the shipped bin).
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startLoopbackModel } from '../../dist/src/llm/scripted/loopback-server.js'

const samples = Number(process.argv[2] ?? 7)
const root = mkdtempSync(join(tmpdir(), 'dsh-start-'))
const home = join(root, 'home')
mkdirSync(home)
const cpu = (pid) => {
  try { return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6 } catch { return NaN }
}
// A reply function notes when the request arrived (no polling: a busy parent would take CPU from the child).
let requestedAt = 0
let cpuAtRequest = NaN
let current = 0
const reply = () => {
  requestedAt = performance.now()
  cpuAtRequest = cpu(current)
  return { text: 'ok' }
}
const replies = Array.from({ length: 1000 }, () => reply)
const model = await startLoopbackModel(replies, {})
writeFileSync(join(home, 'config.yaml'), `model:\n  baseUrl: ${model.baseUrl}\n  maxRetries: 0\n`)
const env = { ...process.env, DSH_HOME: home, DEEPSEEK_API_KEY: 'k', NO_COLOR: '1' }
const named = process.argv.slice(3).map((arg) => arg.split('='))
const variants = Object.fromEntries(
  (named.length > 0 ? named : [['bin', 'dist/bundle/main.js']]).map(([name, path]) => [name, [join(process.cwd(), path)]]),
)
async function firstRequest(args) {
  const start = performance.now()
  const child = spawn(process.execPath, [...args, 'run', 'hi'], { env, cwd: root, stdio: 'ignore' })
  current = child.pid
  await new Promise((r) => child.on('close', r))
  return { ms: requestedAt - start, cpu: cpuAtRequest }
}
function nodeE0() {
  const start = performance.now()
  spawnSync(process.execPath, ['-e', '0'])
  return performance.now() - start
}
const times = { node: [] }
for (const name of Object.keys(variants)) times[name] = { ms: [], cpu: [] }
for (let i = 0; i < samples; i++) {
  times.node.push(nodeE0())
  for (const [name, args] of Object.entries(variants)) {
    const r = await firstRequest(args)
    if (process.env.VERBOSE) console.error(name, r)
    times[name].ms.push(r.ms)
    times[name].cpu.push(r.cpu)
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const base = median(times.node)
console.log(`node -e 0: ${base.toFixed(1)} ms (load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`)
for (const name of Object.keys(variants)) {
  const ms = median(times[name].ms)
  console.log(`${name.padEnd(10)} ${ms.toFixed(1)} ms  ${(ms / base).toFixed(2)}x   main-thread CPU ${median(times[name].cpu).toFixed(1)} ms`)
}
await model.close()
