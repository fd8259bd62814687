// One "host" of the fleet test: a real harness (dist/) on the PostgreSQL backend with
// N agents prompting turns in a loop against a loopback model. Prints one
// `{"event":"turn", id, turn, seq}` line per turn that ended `completed` (durable: turn
// end is a checkpoint). Resumes its sessions when they are stored (after a SIGKILL).
// Usage: node fleet-worker.mjs <repo root> <JSON {url, schema, hostName, home, prefix, agents, pauseMs}>

import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const [repo, settingsJson] = process.argv.slice(2)
const settings = JSON.parse(settingsJson)
const load = (path) => import(pathToFileURL(join(repo, 'dist', 'src', path)).href)
const { resolveConfig, validateConfig } = await load('config/index.js')
const { createHarness } = await load('harness/index.js')
const { startLoopbackModel } = await load('llm/index.js')

const model = await startLoopbackModel(Array.from({ length: 100_000 }, () => ({ text: 'ok' })))
const file = validateConfig('fleet-worker', {
  dshHome: settings.home,
  persistence: {
    backend: 'postgres',
    url: settings.url,
    schema: settings.schema,
    hostName: settings.hostName,
    leaseMs: 60_000,
  },
  model: { maxRetries: 2 },
})
const harness = await createHarness({
  config: resolveConfig(file, {}),
  model: { baseUrl: model.baseUrl, apiKey: 'test-key' },
})
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`)
say({ ready: true, pid: process.pid })

async function agentLoop(id) {
  const stored = await harness.sessions.exists(id)
  const agent = stored
    ? await harness.agents.resume({ resumeSessionId: id })
    : await harness.agents.create({ sessionId: id, meta: { cwd: settings.home } })
  for (;;) {
    const result = await agent.prompt(`turn for ${id}`)
    if (result.reason !== 'completed') throw new Error(`turn ended ${result.reason}: ${result.error}`)
    say({ event: 'turn', id, turn: result.turn, events: agent.session.length })
    // Paced, so three hosts on two cores leave room for the restarts the test times.
    await new Promise((resolve) => setTimeout(resolve, settings.pauseMs ?? 0))
  }
}

const ids = Array.from({ length: settings.agents }, (_, index) => `${settings.prefix}-${index}`)
await Promise.all(ids.map(agentLoop)).catch((error) => {
  say({ event: 'error', message: String(error?.message ?? error) })
  process.exit(1)
})
