// The row every benchmark module reports to bench/run.ts.

export interface BenchRow {
  /** What was measured, e.g. "jsonl append 100k events". */
  name: string
  /** The measured figure with its unit. */
  measured: string
  /** The baseline figure measured in the same run, with its unit. */
  baseline: string
  /** measured / baseline in the direction the target states. */
  ratio: number
  /** The target, e.g. "≥ 0.5× baseline throughput". */
  target: string
  pass: boolean
  /** A figure for reading, with no target of its own: the result column says so, not ok. */
  informational?: boolean
}

/** A benchmark module: `export default async function run(): Promise<BenchRow[]>`. */
export interface BenchModule {
  default: () => Promise<BenchRow[]>
}
