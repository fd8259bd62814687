// Where `/config` says each value came from: the loader records the fields a file set
// (user file or --config), the environment fills DSH_HOME and DEEPSEEK_BASE_URL, and the
// rest are defaults.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { describeConfig, loadConfig } from '../../src/config/index.js'
import { useTempDirs } from '../support/temp-dir.js'

const makeDir = useTempDirs('dsh-config-sources-')

it('names the user file, --config, env and default as sources', () => {
  const home = makeDir()
  mkdirSync(home, { recursive: true })
  const file = join(home, 'config.yaml')
  writeFileSync(file, 'model:\n  effort: low\nhooks:\n  claudeCode: []\n')
  const env = { DSH_HOME: home, DEEPSEEK_BASE_URL: 'http://127.0.0.1:9/v1' }
  const rows = describeConfig(loadConfig({ env }), env)
  const row = (key: string) => rows.find((candidate) => candidate.key === key)
  expect(row('model.effort')).toEqual({ key: 'model.effort', value: 'low', source: `user file ${file}` })
  expect(row('hooks.claudeCode')).toEqual({
    key: 'hooks.claudeCode',
    value: '[]',
    source: `user file ${file}`,
  })
  expect(row('model.baseUrl')).toEqual({
    key: 'model.baseUrl',
    value: 'http://127.0.0.1:9/v1',
    source: 'env DEEPSEEK_BASE_URL',
  })
  expect(row('home')).toEqual({ key: 'home', value: home, source: 'env DSH_HOME' })
  expect(row('model.name')?.source).toBe('default')
  expect(row('persistence.backend')).toEqual({
    key: 'persistence.backend',
    value: 'jsonl',
    source: 'default',
  })

  const other = join(makeDir(), 'other.yaml')
  writeFileSync(other, 'model:\n  maxRetries: 2\n')
  const flagged = describeConfig(loadConfig({ file: other, env: {} }), {}, [
    { key: 'model.effort', value: 'max', source: 'this session' },
  ])
  expect(flagged.find((r) => r.key === 'model.maxRetries')?.source).toBe(`--config ${other}`)
  expect(flagged.find((r) => r.key === 'model.effort')?.source).toBe('this session')
  expect(flagged.find((r) => r.key === 'model.baseUrl')).toMatchObject({ source: 'default' })
})
