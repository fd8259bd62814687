// How big the reliability trials are: RELIABILITY_SIZE=ci (default, what `.ci/run` runs)
// or full (on demand). Each trial count has one value per size; figures go to stdout so
// RELIABILITY.md can quote them.

import { vi } from 'vitest'

export type ReliabilitySize = 'ci' | 'full'

// Every reliability file imports this. Their tests are loops of trials (5 `dsh run`s under a
// fault, 100 MCP servers starting): the main suite's 30 s per test is a deadline such a loop
// misses on a busy machine though nothing is wrong. The trials' own waits stay conditions.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 120_000 })

function readSize(): ReliabilitySize {
  const raw = process.env.RELIABILITY_SIZE ?? 'ci'
  if (raw !== 'ci' && raw !== 'full') throw new Error(`RELIABILITY_SIZE must be ci or full, not ${raw}`)
  return raw
}

export const SIZE: ReliabilitySize = readSize()

/** The count for the current size. */
export function sized(counts: { ci: number; full: number }): number {
  return counts[SIZE]
}

/** A seeded PRNG (mulberry32): trials print their seed, RELIABILITY_SEED replays one. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const SEED = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2 ** 31)

/** One figure line: `reliability <name>: key=value …`, grep-able from the run's output. */
export function reportFigure(name: string, figures: Record<string, number | string>): void {
  const text = Object.entries(figures)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ')
  process.stdout.write(`reliability ${name} (size=${SIZE}, seed=${SEED}): ${text}\n`)
}
