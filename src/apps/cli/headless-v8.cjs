// V8 settings for a headless `dsh run`, a short process that runs one turn and exits (issue
// #31; bench/RESULTS.md, "Start-up: a leaner headless turn"). Measured on a 20-step turn,
// each of these costs more than it saves there:
// - the young generation growing from 1 MB to 16 MB semi-spaces (about 12 MB resident);
// - TurboFan optimizing a dozen functions (its compiler's pages and zone memory, about 5 MB,
//   and compile jobs that take one of the two cores while the turn starts).
// The bin (bin.cjs) applies them after V8 has checked the code cache: V8 compares a cache's
// flags with the current ones only then. These flags are read when V8 decides (to grow, to
// optimize), so setting them at run time is safe; a flag read once at start-up is not (tried:
// --single-threaded-gc set at run time crashed V8) and must never be added here.
'use strict'
const { setFlagsFromString } = require('node:v8')

const HEADLESS_V8_FLAGS = [
  // Keep the semi-spaces at their initial 1 MB (default: double them when objects survive).
  '--semi-space-growth-factor=1',
  // Optimize only code that stays hot ten times as long (default 67584), and no small
  // function on its first tick (default: up to 81 bytes of bytecode): a short turn
  // optimizes nothing, a long one still optimizes its hot loops.
  '--interrupt-budget=675840',
  '--max-bytecode-size-for-early-opt=0',
]

// Node's own modules that every headless turn loads (measured: process.moduleLoadList of a
// 20-step `dsh run`; `node:https` for the default DeepSeek endpoint). Node compiles its
// modules from a code cache built into the binary, but V8 checks that cache against the
// current flags, and any flag set here changes them: loaded after the flags, these compiled
// from source, about 15 ms more to the first model request (bench/RESULTS.md, 2026-12-07).
// So they load first. One missing from the list costs only that time.
const NODE_MODULES_OF_A_TURN = [
  'node:child_process',
  'node:crypto',
  'node:fs/promises',
  'node:http',
  'node:https',
  'node:os',
  'node:readline',
]

/** Loads NODE_MODULES_OF_A_TURN, then applies HEADLESS_V8_FLAGS to this process. */
function useHeadlessV8Flags() {
  for (const id of NODE_MODULES_OF_A_TURN) require(id)
  // The streams behind them (a pipe's net.Socket, a file's or a terminal's) load on first use.
  void process.stdout
  void process.stderr
  setFlagsFromString(HEADLESS_V8_FLAGS.join(' '))
}

/**
 * No stack traces captured in a headless run unless DSH_DEBUG asks to see them: nothing
 * else prints one (an unexpected error is one line and a DSH_DEBUG hint), and each costs a
 * walk of the stack where it is made. Cordis makes two per plugin and effect as the harness
 * starts, about 560 in a `dsh run`: ~3 ms of its first request (bench/RESULTS.md,
 * 2026-12-07). zod skips its own the same way.
 */
function captureStacksOnlyForDebug(env) {
  // The rule reportError and the logger use (apps/shared): this file runs before the bundle.
  const debug = env.DSH_DEBUG !== undefined && env.DSH_DEBUG !== '' && env.DSH_DEBUG !== '0'
  if (!debug) Error.stackTraceLimit = 0
}

module.exports = { HEADLESS_V8_FLAGS, NODE_MODULES_OF_A_TURN, captureStacksOnlyForDebug, useHeadlessV8Flags }
