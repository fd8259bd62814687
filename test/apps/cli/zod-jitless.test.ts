// `dsh run` lets zod generate no parser code (src/apps/cli/zod-jitless.ts): zod decides it
// when a schema is built, so the setting must come before the run's modules build theirs,
// the config's own schema included. Counted in a fresh Node: every `new Function` zod makes.

import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'

const tempDir = useTempDirs('dsh-jitless-')

it('loads the run command and parses a config without zod generating a parser', () => {
  const home = tempDir()
  writeFileSync(join(home, 'config.yaml'), 'model:\n  baseUrl: http://127.0.0.1:9\n')
  const url = (path: string) => JSON.stringify(pathToFileURL(resolve(path)).href)
  const script = `
    let generated = 0
    globalThis.Function = new Proxy(Function, { construct(target, args) { generated += 1; return Reflect.construct(target, args) } })
    await import(${url('dist/src/apps/cli/run.js')})
    const { loadConfig } = await import(${url('dist/src/config/load.js')})
    loadConfig({ env: { DSH_HOME: ${JSON.stringify(home)} } })
    process.stdout.write(String(generated))`
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
  expect(result.status, result.stderr).toBe(0)
  expect(result.stdout).toBe('0')
})
