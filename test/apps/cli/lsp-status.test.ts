// `dsh lsp status` from the built CLI: configured servers with installed state and install
// command; --check starts them for the folder and reports root and state, then stops them.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { fakeLspServer } from '../../support/fake-lsp.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, makeWorld, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-lsp-')
beforeAll(assertBuilt)

function world(config: string) {
  return makeWorld(makeDir(), 'http://127.0.0.1:9/v1', config)
}

it('lists the servers with where they are installed or how to install them', async () => {
  const w = world(
    'lsp:\n  servers:\n    gopls:\n      command: dsh-no-such-gopls\n    clangd:\n      disabled: true\n',
  )
  const run = await runCli(['lsp', 'status'], { env: w.env, cwd: w.project })
  expect(run.code).toBe(0)
  const lines = run.stdout.trim().split('\n')
  expect(lines.find((line) => line.startsWith('gopls'))).toBe('gopls  not installed  (.go)')
  expect(lines.some((line) => line.startsWith('clangd'))).toBe(false)
  expect(lines.find((line) => line.startsWith('rust-analyzer'))).toMatch(
    /^rust-analyzer {2}(installed: \/|not installed — install: rustup component add rust-analyzer)/,
  )
})

it('--check starts each server for the folder, reports it and stops it; lsp: false says so', async () => {
  const dir = makeDir()
  const fake = fakeLspServer(dir, 'normal')
  const entry = fake.entry as { command: string; args: string[] }
  const w = world(
    [
      'lsp:',
      '  servers:',
      ...['typescript', 'pyright', 'gopls', 'rust-analyzer', 'clangd'].map(
        (id) => `    ${id}: { disabled: true }`,
      ),
      '    fake:',
      `      command: ${JSON.stringify(entry.command)}`,
      `      args: ${JSON.stringify(entry.args)}`,
      '      extensions: [fake]',
      '',
    ].join('\n'),
  )
  writeFileSync(join(w.project, 'a.fake'), 'BAD\n')
  const run = await runCli(['lsp', 'status', '--check'], { env: w.env, cwd: w.project })
  expect(run.stderr).toBe('')
  expect(run.stdout).toMatch(new RegExp(`^fake {2}running pid \\d+ {2}${w.project}\\n$`))
  expect(run.code).toBe(0)

  const off = world('lsp: false\n')
  const quiet = await runCli(['lsp', 'status'], { env: off.env, cwd: off.project })
  expect(quiet.stdout).toBe('code intelligence is off (config lsp: false)\n')
})
