import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compileHookTable, loadHookFiles, parseHookSettings } from '../../src/hooks/index.js'
import { loadProjectPermissions } from '../../src/permissions/index.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-hooks-config-')

function collect() {
  const warnings: string[] = []
  return { warnings, warn: (message: string) => warnings.push(message) }
}

describe('parseHookSettings', () => {
  it('reads the Claude Code shape with a hooks key, defaulting type to command', () => {
    const { warnings, warn } = collect()
    const settings = parseHookSettings(
      {
        permissions: { allow: [] },
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'command', command: 'a.sh', timeout: 5 }, { command: 'b.sh' }],
            },
          ],
          Stop: [{ hooks: [{ command: 'stop.sh' }] }],
        },
      },
      'settings.json',
      warn,
    )
    expect(warnings).toEqual([])
    expect(settings?.get('PreToolUse')).toEqual([
      {
        matcher: 'Bash',
        source: 'settings.json',
        hooks: [{ command: 'a.sh', timeoutSec: 5 }, { command: 'b.sh' }],
      },
    ])
    expect(settings?.get('Stop')).toEqual([{ source: 'settings.json', hooks: [{ command: 'stop.sh' }] }])
  })

  it('reads a bare event map and the Codex timeoutSec alias', () => {
    const { warn } = collect()
    const settings = parseHookSettings(
      { Stop: [{ hooks: [{ command: 'x', timeoutSec: 7 }] }] },
      'hooks.json',
      warn,
    )
    expect(settings?.get('Stop')?.[0]?.hooks).toEqual([{ command: 'x', timeoutSec: 7 }])
  })

  it('skips non-command hooks with a warning and keeps the rest', () => {
    const { warnings, warn } = collect()
    const settings = parseHookSettings(
      { hooks: { Stop: [{ hooks: [{ type: 'prompt', prompt: 'is it done?' }, { command: 'ok.sh' }] }] } },
      'f',
      warn,
    )
    expect(settings?.get('Stop')?.[0]?.hooks).toEqual([{ command: 'ok.sh' }])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('"prompt"')
  })

  it.each([
    ['an array', []],
    ['a string', 'hooks'],
    ['a group without hooks', { hooks: { Stop: [{ matcher: '' }] } }],
    ['a command hook without command', { hooks: { Stop: [{ hooks: [{ type: 'command' }] }] } }],
    ['a negative timeout', { hooks: { Stop: [{ hooks: [{ command: 'x', timeout: -1 }] }] } }],
    ['a non-array event', { hooks: { Stop: { hooks: [] } } }],
  ])('rejects %s with a warning and registers nothing', (_label, value) => {
    const { warnings, warn } = collect()
    expect(parseHookSettings(value, 'bad.json', warn)).toBeUndefined()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('bad.json')
  })
})

describe('a Claude Code settings file is read as the whole settings object (issue 24, item 7)', () => {
  it.each([
    ['only permissions', { permissions: { allow: ['Bash(npm test *)'], deny: [] } }],
    ['model and env', { model: 'opus', env: { FOO: '1' } }],
    ['an empty object', {}],
    ['other Claude Code keys', { statusLine: { type: 'command', command: 'x' }, apiKeyHelper: 'y' }],
  ])('%s: no hooks, and no warning', (_label, value) => {
    const { warnings, warn } = collect()
    expect(parseHookSettings(value, 'settings.json', warn)?.size).toBe(0)
    expect(warnings).toEqual([])
  })

  it.each([
    [{ hooks: 'x' }, 'hooks: Invalid input: expected record, received string'],
    [
      { hooks: { Stop: [{ hooks: 'y' }] } },
      'hooks.Stop[0].hooks: Invalid input: expected array, received string',
    ],
    [
      { permissions: {}, hooks: { Stop: [{ hooks: [{ command: 'x', timeout: -1 }] }] } },
      'hooks.Stop[0].hooks[0].timeout:',
    ],
  ])('a present, malformed hooks key is an error naming its path: %j', (value, expected) => {
    const { warnings, warn } = collect()
    expect(parseHookSettings(value, 'settings.json', warn)).toBeUndefined()
    expect(warnings).toEqual([
      expect.stringContaining(`hook file settings.json is invalid, no hooks registered from it: ${expected}`),
    ])
  })

  it('a bare event map (a Codex hooks.json) still reads', () => {
    const { warnings, warn } = collect()
    const settings = parseHookSettings({ Stop: [{ hooks: [{ command: 'x' }] }] }, 'hooks.json', warn)
    expect(settings?.get('Stop')).toHaveLength(1)
    expect(warnings).toEqual([])
  })

  it('permission rules read the same object: a bad hooks key does not hide deny rules, a bad permissions key is named', () => {
    const root = tempDir()
    mkdirSync(join(root, '.claude'))
    const settings = join(root, '.claude', 'settings.json')
    writeFileSync(settings, JSON.stringify({ hooks: 'x', permissions: { deny: ['Bash(rm *)'] } }))
    expect(loadProjectPermissions(root, true).rules.deny.map((rule) => rule.text)).toEqual(['Bash(rm *)'])
    writeFileSync(settings, JSON.stringify({ model: 'opus', env: { A: 'b' } }))
    expect(loadProjectPermissions(root, true).files).toEqual([])
    writeFileSync(settings, JSON.stringify({ permissions: { allow: 'Bash' } }))
    expect(() => loadProjectPermissions(root, true)).toThrow(
      `${settings}: not a valid settings file (permissions.allow: Invalid input: expected array, received string)`,
    )
    writeFileSync(settings, '[1]')
    expect(() => loadProjectPermissions(root, true)).toThrow('(top level): expected a JSON object')
  })
})

describe('loadHookFiles', () => {
  it('concatenates groups of several files in order', () => {
    const dir = tempDir()
    const first = join(dir, 'a.json')
    const second = join(dir, 'b.json')
    writeFileSync(first, JSON.stringify({ hooks: { Stop: [{ hooks: [{ command: 'one' }] }] } }))
    writeFileSync(second, JSON.stringify({ Stop: [{ hooks: [{ command: 'two' }] }] }))
    const { warnings, warn } = collect()
    const settings = loadHookFiles([first, second], warn)
    expect(warnings).toEqual([])
    expect(settings.get('Stop')?.map((group) => group.hooks[0]?.command)).toEqual(['one', 'two'])
  })

  it('warns about a missing file and a file that is not JSON, and keeps the good one', () => {
    const dir = tempDir()
    const good = join(dir, 'good.json')
    const broken = join(dir, 'broken.json')
    writeFileSync(good, JSON.stringify({ Stop: [{ hooks: [{ command: 'ok' }] }] }))
    writeFileSync(broken, '{ "hooks": ')
    const { warnings, warn } = collect()
    const settings = loadHookFiles([join(dir, 'missing.json'), broken, good], warn)
    expect(warnings).toHaveLength(2)
    expect(warnings[0]).toContain('missing.json')
    expect(warnings[1]).toContain('broken.json')
    expect(settings.get('Stop')).toHaveLength(1)
  })
})

describe('compileHookTable', () => {
  it('drops events the dialect does not support with a note, and names the file of a bad matcher', () => {
    const { warnings, warn } = collect()
    const notes: string[] = []
    const settings = parseHookSettings(
      {
        Notification: [{ hooks: [{ command: 'n' }] }],
        PreToolUse: [{ matcher: '(', hooks: [{ command: 'p' }] }],
      },
      'settings.json',
      warn,
    )!
    const table = compileHookTable(settings, 'codex', ['PreToolUse'], warn, (note) => notes.push(note))
    expect([...table.keys()]).toEqual(['PreToolUse'])
    expect(notes).toHaveLength(1)
    expect(notes[0]).toContain('Notification')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('settings.json')
    expect(table.get('PreToolUse')![0]!.match(['('])).toBe(false)
  })
})
