// `dsh sessions migrate --from <backend> --to <backend>`: copies every session between
// the backends the config describes (persistence.root, persistence.file,
// persistence.url), keeping ids. Safe to run again: it copies only what is missing.

import { loadConfig } from '../../config/load.js'
import { toTerminalId } from '../../core/terminal-text.js'
import type { CopyOutcome } from '../../persistence/copy.js'
import { loadPersistenceBackend, type PersistenceChoice } from '../../persistence/load-backend.js'
import type { SessionPersistence } from '../../persistence/persistence.js'
import { ExitCode, usageError } from '../shared/errors.js'

export interface MigrateOptions {
  from: string
  to: string
  dryRun?: boolean
  config?: string
}

const BACKENDS = ['jsonl', 'sqlite', 'postgres'] as const
type StoredBackend = (typeof BACKENDS)[number]

function backendName(flag: string, value: string): StoredBackend {
  if ((BACKENDS as readonly string[]).includes(value)) return value as StoredBackend
  throw usageError(`${flag} must be one of ${BACKENDS.join(', ')} (got ${JSON.stringify(value)})`)
}

export async function migrateCommand(options: MigrateOptions): Promise<number> {
  const from = backendName('--from', options.from)
  const to = backendName('--to', options.to)
  if (from === to) throw usageError('--from and --to name the same backend: nothing to copy')
  const config = loadConfig(options.config !== undefined ? { file: options.config } : {})
  const { Context } = await import('cordis')
  const open = async (backend: StoredBackend) => {
    const ctx = new Context()
    const choice: PersistenceChoice = { ...config.persistence, backend }
    const fiber = await loadPersistenceBackend(ctx, choice)
    await fiber.await()
    const service = ctx.get('sessionPersistence') as SessionPersistence
    return { service, dispose: () => fiber.dispose() }
  }
  const source = await open(from)
  try {
    const target = await open(to)
    try {
      const { copySessions } = await import('../../persistence/copy.js')
      const report = await copySessions(source.service, target.service, {
        dryRun: options.dryRun ?? false,
        onSession: (outcome) => describe(outcome, options.dryRun ?? false),
      })
      process.stdout.write(`${migrateSummary(report, options.dryRun ?? false, from, to)}\n`)
      return report.problems > 0 ? ExitCode.Failure : ExitCode.Ok
    } finally {
      await target.dispose()
    }
  } finally {
    await source.dispose()
  }
}

function describe(outcome: CopyOutcome, dryRun: boolean): void {
  if (outcome.outcome === 'conflict' || outcome.outcome === 'failed') {
    process.stderr.write(`dsh: session ${toTerminalId(outcome.id)} not copied: ${outcome.reason}\n`)
  } else if (dryRun && (outcome.outcome === 'copied' || outcome.outcome === 'extended')) {
    process.stdout.write(
      `${outcome.outcome === 'copied' ? 'copy' : 'extend'} ${toTerminalId(outcome.id)} (${outcome.events} events)\n`,
    )
  }
}

/** The last line: what was (or, with --dry-run, would be) copied and extended. */
export function migrateSummary(
  report: {
    copied: number
    extended: number
    events: number
    present: number
    empty: number
    problems: number
  },
  dryRun: boolean,
  from: string,
  to: string,
): string {
  const [copy, extend] = dryRun ? ['would copy', 'extend'] : ['copied', 'extended']
  const sessions = `${report.copied} session${report.copied === 1 ? '' : 's'}`
  const events = `${report.events} event${report.events === 1 ? '' : 's'}`
  const empty = report.empty > 0 ? `${report.empty} empty (nothing to copy); ` : ''
  return (
    `${copy} ${sessions} and ${extend} ${report.extended} (${events}) from ${from} to ${to}; ` +
    `${report.present} already there; ${empty}${report.problems} not copied`
  )
}
