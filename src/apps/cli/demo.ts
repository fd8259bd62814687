// `dsh demo`: a complete turn with the built-in scripted model served over real
// loopback HTTP, in a fresh temporary folder and home, so it needs no key and
// leaves nothing in the user's own home. Prints where the transcript is.

import { randomUUID } from 'node:crypto'
import { accessSync, constants, mkdirSync, mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, delimiter, join, relative } from 'node:path'
import { resolveConfig, validateConfig } from '../../config/load.js'
import { createHarness } from '../../harness/compose.js'
import { startLoopbackModel } from '../../llm/scripted/loopback-server.js'
import { ExitCode } from '../shared/errors.js'
import { logToStderr } from '../shared/logging.js'
import { colorsFor, createStreamRenderer, reasoningPlacement } from '../shared/render.js'
import { demoScript } from './demo-script.js'

const DEMO_PROMPT =
  'Show me how you work here: which session you are, where your transcript lives, and run a small program.'
const DEMO_API_KEY = 'dsh-demo'
/** Per streamed chunk: slow enough to see the answer stream, fast enough not to bore. */
const DEMO_CHUNK_DELAY_MS = 12

export async function demoCommand(): Promise<number> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-demo-')))
  const home = join(root, 'home')
  const cwd = join(root, 'project')
  mkdirSync(home, { mode: 0o700 })
  mkdirSync(cwd)

  const colors = colorsFor(process.stdout)
  const model = await startLoopbackModel(
    demoScript({
      nodeCommand: nodeOnPath() ? 'node' : JSON.stringify(process.execPath),
      delayMs: DEMO_CHUNK_DELAY_MS,
    }),
    { apiKey: DEMO_API_KEY, strict: true },
  )
  const interrupt = new AbortController()
  const onSigint = () => interrupt.abort()
  process.on('SIGINT', onSigint)
  try {
    const config = resolveConfig(
      validateConfig('(demo)', { dshHome: home, persistence: { backend: 'jsonl' } }),
      {},
    )
    const harness = await createHarness({ config, model: { baseUrl: model.baseUrl, apiKey: DEMO_API_KEY } })
    logToStderr(harness.ctx)
    let sessionId: string
    let transcript: string | undefined
    let reason: string
    try {
      const agent = await harness.agents.create({ sessionId: randomUUID(), meta: { cwd } })
      sessionId = agent.id
      transcript = harness.ctx.get('sessionPersistence')?.locate(agent.session.header)?.path
      const say = (text: string) => process.stdout.write(`${text}\n`)
      say(
        colors.bold('dsh demo') +
          colors.dim(` — a scripted model over real HTTP at ${model.baseUrl}, no API key needed`),
      )
      say(colors.dim(`folder   ${cwd}`))
      say(colors.dim(`home     ${home}  (a temporary DSH_HOME: your own ~/.dsh is untouched)`))
      say(colors.dim(`session  ${agent.id}`))
      say('')
      say(`${colors.bold(colors.green('>'))} ${DEMO_PROMPT}`)
      say('')
      const unsubscribe = agent.onOutput(
        createStreamRenderer(process.stdout, colors, reasoningPlacement(process.stdout, false)),
      )
      try {
        reason = (await agent.prompt(DEMO_PROMPT, { signal: interrupt.signal })).reason
      } finally {
        unsubscribe()
      }
    } finally {
      await harness.dispose()
    }

    const self = invocation()
    process.stdout.write('\n')
    process.stdout.write(`${colors.bold('transcript')}  ${transcript ?? '(no dedicated file)'}\n`)
    process.stdout.write(colors.dim(`read it      DSH_HOME=${home} ${self} sessions show ${sessionId}\n`))
    process.stdout.write(
      colors.dim(`real model   export DEEPSEEK_API_KEY=sk-...; ${self} run "explain this repository"\n`),
    )
    if (reason === 'completed') return ExitCode.Ok
    return interrupt.signal.aborted ? ExitCode.Interrupted : ExitCode.Failure
  } finally {
    process.off('SIGINT', onSigint)
    await model.close()
  }
}

function nodeOnPath(): boolean {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue
    try {
      accessSync(join(dir, 'node'), constants.X_OK)
      return true
    } catch {
      // Not in this folder.
    }
  }
  return false
}

/** How the user ran dsh: `dsh` when installed as a bin, else `node <path to main.js>`. */
function invocation(): string {
  const script = process.argv[1] ?? 'dsh'
  if (basename(script) === 'dsh') return 'dsh'
  const near = relative(process.cwd(), script)
  return `node ${near.startsWith('..') || near === '' ? script : near}`
}
