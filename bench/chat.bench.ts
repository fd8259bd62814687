// Chat render throughput: a 2,000-line markdown answer streamed in small chunks through
// the chat's transcript view and screen (markdown, wrapping, live-region redraws), against
// writing the same chunks raw, one chunk per event-loop task in both, to /dev/null with
// writeSync (cheaper than any terminal, so a strict baseline). Also whether the
// time per chunk grows with the length of the conversation already on screen.

import { closeSync, openSync, writeSync } from 'node:fs'
import { loadHighlighter } from '../src/apps/chat/highlight.js'
import { Screen } from '../src/apps/chat/screen.js'
import { TranscriptView } from '../src/apps/chat/transcript-view.js'
import { colorsFor } from '../src/apps/shared/render.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const LINES = 2_000
const CHUNK_CHARS = 12
const ROUNDS = 7
const RENDER_TARGET = 3
const GROWTH_TARGET = 1.5

/** A long answer with every block kind the renderer handles. */
function answer(): string {
  const blocks: string[] = []
  for (let i = 0; blocks.length < LINES; i++) {
    blocks.push(
      `## Section ${i}`,
      '',
      `Some **bold** text, \`code\` and a [link](https://example.com/${i}).`,
      '',
    )
    blocks.push(`- item ${i} with a longer explanation that goes on for a while`, `- another item`, '')
    blocks.push('```ts', `const value${i}: number = ${i} // comment`, '```', '')
    blocks.push('| a | b |', '| --- | --- |', `| ${i} | ${i * 2} |`, '')
  }
  return blocks.slice(0, LINES).join('\n')
}

function chunks(text: string): string[] {
  const out: string[] = []
  for (let at = 0; at < text.length; at += CHUNK_CHARS) out.push(text.slice(at, at + CHUNK_CHARS))
  return out
}

const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Streams the chunks through the chat's renderer, one chunk per event-loop task as they
 * arrive from the network, redrawing as the chat does (coalesced, at most once a frame).
 * Returns the total ms and the synchronous ms spent on each chunk, in order.
 */
async function renderRun(pieces: string[], fd: number): Promise<{ totalMs: number; perChunk: number[] }> {
  const colors = colorsFor({ isTTY: true } as NodeJS.WriteStream, {})
  const out = { write: (text: string) => writeSync(fd, text), columns: 120, rows: 40 }
  let view: TranscriptView
  const screen = new Screen(out, () => ({
    lines: [...view.live(), '> ', 'status'],
    cursor: { row: 0, column: 2 },
  }))
  view = new TranscriptView(
    colors,
    () => 120,
    (lines) => screen.commit(lines),
  )
  view.handle({ type: 'turn-start', turn: 1, prompt: 'x' })
  const perChunk: number[] = []
  const started = performance.now()
  for (const piece of pieces) {
    const t = performance.now()
    view.handle({ type: 'text-delta', text: piece })
    screen.schedule()
    perChunk.push(performance.now() - t)
    await nextTask()
  }
  view.handle({ type: 'turn-end', result: { turn: 1, reason: 'completed', text: '' } })
  screen.refresh()
  return { totalMs: performance.now() - started, perChunk }
}

/** The same chunks written raw, one per event-loop task. */
async function rawRun(pieces: string[], fd: number): Promise<number> {
  const started = performance.now()
  for (const piece of pieces) {
    writeSync(fd, piece)
    await nextTask()
  }
  return performance.now() - started
}

export default async function run(): Promise<BenchRow[]> {
  await loadHighlighter()
  const pieces = chunks(answer())
  const fd = openSync('/dev/null', 'w')
  try {
    await renderRun(pieces, fd) // warm-up
    const render: number[] = []
    const raw: number[] = []
    const growth: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      raw.push(await rawRun(pieces, fd))
      const result = await renderRun(pieces, fd)
      render.push(result.totalMs)
      const tenth = Math.floor(result.perChunk.length / 10)
      const early = result.perChunk.slice(tenth, 2 * tenth).reduce((a, b) => a + b, 0)
      const late = result.perChunk.slice(-tenth).reduce((a, b) => a + b, 0)
      growth.push(late / early)
    }
    const renderMs = median(render)
    const rawMs = median(raw)
    const growthRatio = median(growth)
    return [
      {
        name: `chat render, ${LINES}-line markdown answer in ${pieces.length} chunks (median)`,
        measured: `${renderMs.toFixed(1)} ms`,
        baseline: `${rawMs.toFixed(1)} ms raw writeSync of the same chunks`,
        ratio: renderMs / rawMs,
        target: `≤ ${RENDER_TARGET}× raw`,
        pass: renderMs / rawMs <= RENDER_TARGET,
      },
      {
        name: 'chat render, time per chunk: last tenth vs second tenth of the answer',
        measured: `${growthRatio.toFixed(2)}×`,
        baseline: 'second tenth of the chunks',
        ratio: growthRatio,
        target: `≤ ${GROWTH_TARGET}× (no growth)`,
        pass: growthRatio <= GROWTH_TARGET,
      },
    ]
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 50)) // a scheduled redraw still pending
    closeSync(fd)
  }
}
