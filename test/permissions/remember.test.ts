// "Yes, and don't ask again": the suggested rule (command prefix or tool), and saving it in
// the project's .claude/settings.local.json without losing other keys or the folder's trust.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { rememberAllowRule, suggestedAllowRule } from '../../src/permissions/remember.js'
import { fingerprintProjectConfig, isTrustedNow, ProjectTrustStore } from '../../src/trust/index.js'
import { useTempDirs } from '../support/temp-dir.js'

const makeDir = useTempDirs('dsh-remember-')

it.each([
  ['npm test', 'Bash(npm test *)'],
  ['npm test -- --watch', 'Bash(npm test *)'],
  ['git log --oneline', 'Bash(git log *)'],
  ['ls -la src', 'Bash(ls *)'],
  ['make', 'Bash(make)'],
  ['CI=1 npm run build', 'Bash(npm run *)'],
])('bash %s suggests %s', (command, rule) => {
  expect(suggestedAllowRule('Bash', { command })).toBe(rule)
})

it('suggests no rule for a line of several commands, and the tool for other tools', () => {
  expect(suggestedAllowRule('Bash', { command: 'npm test && rm -rf dist' })).toBeUndefined()
  expect(suggestedAllowRule('Write', { file_path: 'a' })).toBe('Write')
  expect(suggestedAllowRule('mcp__db__query', {})).toBe('mcp__db__query')
})

it('adds to permissions.allow of settings.local.json, keeping other keys, once', () => {
  const root = makeDir()
  mkdirSync(join(root, '.claude'))
  const path = join(root, '.claude/settings.local.json')
  writeFileSync(
    path,
    JSON.stringify({ env: { A: '1' }, permissions: { deny: ['Bash(rm *)'], allow: ['Read'] } }),
  )
  expect(rememberAllowRule(root, 'Bash(npm test *)', undefined)).toBe(path)
  rememberAllowRule(root, 'Bash(npm test *)', undefined)
  expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
    env: { A: '1' },
    permissions: { deny: ['Bash(rm *)'], allow: ['Read', 'Bash(npm test *)'] },
  })
})

it('a folder trusted with its configuration stays trusted after the user saves a rule', () => {
  const root = makeDir()
  const home = makeDir()
  const store = new ProjectTrustStore(home)
  store.trust(root, Date.now(), fingerprintProjectConfig(root))
  expect(isTrustedNow(store, root)).toBe(true)
  rememberAllowRule(root, 'Write', home)
  expect(isTrustedNow(store, root)).toBe(true)
})

it('refuses to overwrite a settings file that is not JSON', () => {
  const root = makeDir()
  mkdirSync(join(root, '.claude'))
  writeFileSync(join(root, '.claude/settings.local.json'), '{ broken')
  expect(() => rememberAllowRule(root, 'Write', undefined)).toThrow(
    /not a valid settings file, so the rule was not saved/,
  )
  expect(readFileSync(join(root, '.claude/settings.local.json'), 'utf8')).toBe('{ broken')
})
