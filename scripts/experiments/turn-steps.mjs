// Experiment: a headless turn of 20 `bash true` calls per build, builds interleaved: spawn to the
// first request, the first step, the 20 steps (gaps between requests at a loopback model), exit.
// Usage: node scripts/experiments/turn-steps.mjs N [dist/x/main.js ...]; WRAP="strace -c" or
// NODEARGS="--cpu-prof" run each dsh under a wrapper or with Node options.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startLoopbackModel } from '../../dist/src/llm/scripted/loopback-server.js'

const runs = Number(process.argv[2] ?? 5)
const bins = (process.argv.length > 3 ? process.argv.slice(3) : ['dist/bundle/main.js']).map((b) => join(process.cwd(), b))
const root = mkdtempSync(join(tmpdir(), 'dsh-steps-'))
const home = join(root, 'home')
mkdirSync(home)
let stamps = []
const step = (i) => () => { stamps.push(performance.now()); return i < 20 ? { toolCalls: [{ name: 'bash', arguments: { command: `true # ${i}` } }] } : { text: 'done' } }
const replies = []
for (let r = 0; r < (runs + 1) * bins.length; r++) for (let i = 0; i <= 20; i++) replies.push(step(i))
const model = await startLoopbackModel(replies, {})
writeFileSync(join(home, 'config.yaml'), `model:\n  baseUrl: ${model.baseUrl}\n  maxRetries: 0\n`)
const env = { ...process.env, DSH_HOME: home, DEEPSEEK_API_KEY: 'k', NO_COLOR: '1' }
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const bare = async () => { const s = performance.now(); await new Promise((r) => spawn('bash', ['-c', 'true'], { stdio: 'ignore' }).on('close', r)); return performance.now() - s }
const results = bins.map(() => ({ first: [], steps: [], firstStep: [], total: [] }))
for (let r = 0; r <= runs; r++) {
  for (const [b, bin] of bins.entries()) {
    stamps = []
    const start = performance.now()
    const wrap = process.env.WRAP ? process.env.WRAP.split(' ') : []
    const child = spawn(wrap[0] ?? process.execPath, [...wrap.slice(1), ...(wrap.length ? [process.execPath] : []), ...(process.env.NODEARGS ? process.env.NODEARGS.split(' ') : []), bin, 'run', '--permission-mode', 'bypassPermissions', 'go'], { env, cwd: root, stdio: 'ignore' })
    await new Promise((res) => child.on('close', res))
    const end = performance.now()
    const gaps = stamps.slice(1).map((t, i) => t - stamps[i])
    if (r === 0) continue
    results[b].first.push(stamps[0] - start)
    results[b].firstStep.push(gaps[0])
    results[b].steps.push(gaps.reduce((a, c) => a + c, 0))
    results[b].total.push(end - start); (results[b].exit ??= []).push(end - stamps.at(-1)); (results[b].rest ??= []).push(gaps.slice(1).reduce((a, c) => a + c, 0))
  }
}
const b = []
for (let i = 0; i < 40; i++) b.push(await bare())
console.log(`bare bash -c true median ${median(b).toFixed(2)} ms`)
for (const [i, bin] of bins.entries()) {
  const r = results[i]
  console.log(`${bin.split('/').slice(-2).join('/')}: first request ${median(r.first).toFixed(1)} · first step ${median(r.firstStep).toFixed(1)} · 20 steps ${median(r.steps).toFixed(1)} · steps 2-20 ${median(r.rest).toFixed(1)} · exit ${median(r.exit).toFixed(1)} · total ${median(r.total).toFixed(1)} ms`)
}
await model.close()
