// The chat without a terminal (`dsh chat < prompts.txt`, or a pipe): one turn per
// non-empty line, in order, each to completion. Exit 0 only if every turn completed.

import { createInterface } from 'node:readline'
import { describeImage } from '../../attachments/index.js'
import { toTerminalText } from '../../core/terminal-text.js'
import { ExitCode } from '../shared/errors.js'
import { type AgentOptions, trustFlags } from '../shared/options.js'
import { colorsFor, createStreamRenderer, reasoningPlacement } from '../shared/render.js'
import { type AgentPlan, openHarness, startAgent } from '../shared/start.js'
import { handleTermination } from '../shared/termination.js'
import { chatImages } from './images.js'
import { describeStart } from './notices.js'

export async function pipedChat(plan: AgentPlan, options: AgentOptions): Promise<number> {
  const colors = colorsFor(process.stdout)
  const interrupt = new AbortController()
  // Ctrl-C, SIGTERM, SIGHUP and a reader closing stdout end the turn alike (termination.ts).
  const termination = handleTermination(() => interrupt.abort(), { brokenPipe: true })
  // Nobody to ask, like `dsh run`: headless, only trusted and unchanged project files load.
  const harness = await openHarness(plan, { canAsk: false, trust: trustFlags(options, 'headless') })
  try {
    const started = await startAgent(harness, plan, options)
    const { agent } = started
    process.stdout.write(colors.dim(`${describeStart(started)}\n`))
    let allCompleted = true
    const lines = createInterface({
      input: process.stdin,
      terminal: false,
      crlfDelay: Number.POSITIVE_INFINITY,
    })
    for await (const line of lines) {
      if (interrupt.signal.aborted) break
      if (line.trim() === '') continue
      process.stdout.write(`${colors.bold('> ')}${toTerminalText(line, { keepTabs: false })}\n`)
      let images: Awaited<ReturnType<typeof chatImages>>
      try {
        images = await chatImages(line, agent.cwd, harness)
      } catch (error) {
        // A bad image is one line; the line is not sent and the next one is read.
        process.stdout.write(`${colors.red(toTerminalText((error as Error).message))}\n`)
        allCompleted = false
        continue
      }
      for (const image of images) {
        process.stdout.write(
          `${colors.dim(`  attached ${toTerminalText(describeImage(image.ref), { keepTabs: false })}`)}\n`,
        )
      }
      const unsubscribe = agent.onOutput(
        createStreamRenderer(
          process.stdout,
          colors,
          reasoningPlacement(process.stdout, options.showReasoning),
        ),
      )
      try {
        const result = await agent.prompt(line, {
          signal: interrupt.signal,
          ...(images.length ? { images } : {}),
        })
        if (result.reason !== 'completed') allCompleted = false
      } finally {
        unsubscribe()
      }
    }
    lines.close()
    if (interrupt.signal.aborted) return termination.exitCode ?? ExitCode.Interrupted
    return allCompleted ? ExitCode.Ok : ExitCode.Failure
  } finally {
    await harness.dispose()
    termination.dispose()
  }
}
