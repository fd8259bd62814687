// Plugin log messages (Cordis `ctx.logger`) on stderr: warnings and errors always,
// info and debug with DSH_DEBUG=1. Without an exporter Cordis only buffers them.

import { type Context, Logger, type Message } from 'cordis'

/** Cordis logger levels: error 0, warn 1, info 2, debug 3. */
const WARN_LEVEL = 1
const DEBUG_LEVEL = 3

/**
 * Writes the harness's log messages to stderr (or to `write`, one line without its
 * newline: the chat shows them above its input), starting with those buffered while it
 * was composed (a missing hook file is reported then). Never writes to stdout, so
 * `--json`, stdio and ACP output stay clean.
 */
export function logToStderr(
  ctx: Context,
  env: NodeJS.ProcessEnv = process.env,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  const debug = env.DSH_DEBUG !== undefined && env.DSH_DEBUG !== '' && env.DSH_DEBUG !== '0'
  const threshold = debug ? DEBUG_LEVEL : WARN_LEVEL
  const exporter = {
    colors: false as const,
    export(message: Message): void {
      if (message.level > threshold) return
      const kind = message.type === 'warn' ? 'warning' : message.type
      const text = Logger.format(exporter, message).replace(/\s*\n\s*/g, ' ')
      write(`dsh: ${kind}: ${message.name}: ${text}`)
    },
  }
  for (const message of ctx.logger.buffer) exporter.export(message)
  ctx.logger.exporter(exporter)
}
