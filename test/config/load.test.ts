// Config loading: defaults without a file, and one clear error naming file and field
// for every kind of bad config.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigErrorCode, loadConfig, MAX_CONFIG_BYTES, validateConfig } from '../../src/config/index.js'
import { useTempDirs } from '../support/temp-dir.js'
import { thrownBy } from '../support/thrown.js'

const tempDir = useTempDirs('dsh-config-')

function writeConfig(text: string): string {
  const dir = tempDir()
  const file = join(dir, 'config.yaml')
  writeFileSync(file, text)
  return file
}

describe('loadConfig', () => {
  it('works with no config file at all, with documented defaults under $DSH_HOME', () => {
    const home = tempDir()
    const config = loadConfig({ env: { DSH_HOME: home } })
    expect(config.source).toBeUndefined()
    expect(config.home).toBe(home)
    expect(config.persistence).toMatchObject({
      backend: 'jsonl',
      root: join(home, 'sessions'),
      file: join(home, 'sessions.db'),
    })
    expect(config.model).toMatchObject({ provider: 'openai', apiKeyEnv: 'DEEPSEEK_API_KEY' })
    expect(config.subagents).toEqual({ enabled: true, maxDepth: 2 })
    expect(config.hooks).toEqual({
      claudeCode: [],
      codex: [],
      claudeCodeUserSettings: false,
      codexUserHooks: false,
      projectFiles: true,
    })
  })

  it('reads $DSH_HOME/config.yaml and resolves relative paths against the file', () => {
    const home = tempDir()
    mkdirSync(join(home, 'hooks'))
    writeFileSync(
      join(home, 'config.yaml'),
      'model:\n  name: deepseek-reasoner\npersistence:\n  backend: sqlite\n  file: data/s.db\nhooks:\n  claudeCode: [hooks/settings.json]\n',
    )
    const config = loadConfig({ env: { DSH_HOME: home } })
    expect(config.source).toBe(join(home, 'config.yaml'))
    expect(config.model.name).toBe('deepseek-reasoner')
    expect(config.persistence).toMatchObject({ backend: 'sqlite', file: join(home, 'data/s.db') })
    expect(config.hooks.claudeCode).toEqual([join(home, 'hooks/settings.json')])
  })

  it('refuses a missing explicit --config file', () => {
    expect(() => loadConfig({ file: '/nonexistent/dsh.yaml', env: {} })).toThrow(
      'cannot read config /nonexistent/dsh.yaml: no such file',
    )
  })

  it('names the file and line of a YAML syntax error', () => {
    const file = writeConfig('model:\n  name: [unclosed\n')
    expect(() => loadConfig({ file, env: {} })).toThrow(new RegExp(`^${file}: line \\d+: invalid YAML`))
  })

  it('says in words why an existing config cannot be read, with its own code (exit 1, not a usage error)', () => {
    const home = tempDir()
    const folder = join(home, 'config.yaml')
    mkdirSync(folder)
    const asFolder = thrownBy(() => loadConfig({ file: folder, env: {} }))
    expect(asFolder).toMatchObject({ code: ConfigErrorCode.Unreadable })
    expect((asFolder as Error).message).toBe(`cannot read config ${folder}: it is a folder, not a file`)
    const file = join(home, 'plain')
    writeFileSync(file, 'x')
    const underFile = join(file, 'config.yaml')
    expect((thrownBy(() => loadConfig({ file: underFile, env: {} })) as Error).message).toBe(
      `cannot read config ${underFile}: a part of its path is a file, not a folder (check DSH_HOME)`,
    )
  })

  it('names the file and field of an unknown or mistyped field', () => {
    const unknown = writeConfig('modle:\n  name: x\n')
    expect(() => loadConfig({ file: unknown, env: {} })).toThrow(`${unknown}: unknown field modle`)
    const nested = writeConfig('persistence:\n  backend: jsonl\n  rooot: x\n')
    expect(() => loadConfig({ file: nested, env: {} })).toThrow(`${nested}: persistence: unknown field rooot`)
    const mistyped = writeConfig('subagents:\n  maxDepth: deep\n')
    expect(() => loadConfig({ file: mistyped, env: {} })).toThrow(`${mistyped}: subagents.maxDepth:`)
    const badEnum = writeConfig('persistence:\n  backend: mongodb\n')
    expect(() => loadConfig({ file: badEnum, env: {} })).toThrow(`${badEnum}: persistence.backend:`)
  })

  it('refuses a persistence.url the PostgreSQL driver would misread, without quoting it (it may hold a password)', () => {
    for (const url of [
      'not a url at all',
      'postgres://dsh:TOP/SECRET@127.0.0.1:5432/agents',
      'mysql://dsh@h/db',
    ]) {
      const file = writeConfig(`persistence:\n  backend: postgres\n  url: '${url}'\n`)
      let message = ''
      try {
        loadConfig({ file, env: {} })
      } catch (error) {
        message = (error as Error).message
      }
      expect(message, url).toBe(
        `${file}: persistence.url: must be a postgres:// (or postgresql://) URL; a password with / # ? @ or % in it must be percent-encoded`,
      )
    }
    for (const url of [
      'postgres://dsh:TOP%2FSECRET@127.0.0.1:5432/agents',
      'postgresql://h',
      'postgres:///db?host=/tmp',
    ]) {
      const file = writeConfig(`persistence:\n  backend: postgres\n  url: '${url}'\n`)
      expect(loadConfig({ file, env: {} }).persistence.url, url).toBe(url)
    }
  })

  it('gives a missing section the default its schema gives an empty one (the schemas are built on first use)', () => {
    // config/schema.ts writes each section's default out, so that a config without the section
    // need not build its schema (issue #31); they must not drift from the schemas' own defaults.
    const absent = validateConfig('t', {}) as unknown as Record<string, unknown>
    const sections = Object.keys(absent).filter(
      (key) => typeof absent[key] === 'object' && absent[key] !== null,
    )
    expect(sections.sort()).toEqual(
      [
        'agent',
        'agents',
        'compaction',
        'hooks',
        'lsp',
        'mcpServers',
        'model',
        'permissions',
        'persistence',
        'pricing',
        'secrets',
        'skills',
        'subagents',
        'terminals',
        'web',
      ].sort(),
    )
    for (const key of sections) {
      const empty = Array.isArray(absent[key]) ? [] : {}
      const given = validateConfig('t', { [key]: empty }) as unknown as Record<string, unknown>
      expect(given[key], key).toEqual(absent[key])
    }
  })

  it('takes mcpServers and lsp sections with their defaults, and names the field of a bad entry', () => {
    const good = writeConfig(
      'mcpServers:\n  files:\n    command: npx\n  remote:\n    type: http\n    url: https://example.test/mcp\nlsp:\n  feedback: false\n',
    )
    const config = loadConfig({ file: good, env: {} })
    expect(config.mcpServers).toEqual({
      files: { command: 'npx', args: [], env: {} },
      remote: { type: 'http', url: 'https://example.test/mcp', headers: {} },
    })
    expect(config.lsp).toMatchObject({ feedback: false, diagnosticsWaitMs: 3000, servers: {} })
    const badUrl = writeConfig('mcpServers:\n  remote:\n    type: http\n    url: ftp://x\n')
    expect(() => loadConfig({ file: badUrl, env: {} })).toThrow(`${badUrl}: mcpServers.remote.url:`)
    const badName = writeConfig('mcpServers:\n  "bad name":\n    command: x\n')
    expect(() => loadConfig({ file: badName, env: {} })).toThrow(
      `${badName}: mcpServers.bad name: server names use letters, digits, _ and - (at most 64)`,
    )
    const badLsp = writeConfig('lsp:\n  maxRestarts: 99\n')
    expect(() => loadConfig({ file: badLsp, env: {} })).toThrow(`${badLsp}: lsp.maxRestarts:`)
    expect(loadConfig({ file: writeConfig('lsp: false\n'), env: {} }).lsp).toBe(false)
  })

  it('refuses an MCP server name holding "__", naming the server and why', () => {
    const file = writeConfig('mcpServers:\n  odd:\n    command: x\n  odd__b:\n    command: y\n')
    expect(() => loadConfig({ file, env: {} })).toThrow(
      `${file}: mcpServers.odd__b: a server name may not hold "__": tool names are mcp__<server>__<tool>, so permission rules and hooks could not tell the server from the tool`,
    )
  })

  it('takes the sandbox fields with their defaults, and refuses a bad sandbox value in one line', () => {
    const defaults = loadConfig({ env: { DSH_HOME: tempDir() } })
    expect(defaults).toMatchObject({
      sandbox: 'off',
      sandboxNetwork: true,
      sandboxBwrapPath: '/usr/bin/bwrap',
    })
    const set = writeConfig('sandbox: read-only\nsandboxNetwork: false\nsandboxBwrapPath: bin/bwrap\n')
    expect(loadConfig({ file: set, env: {} })).toMatchObject({
      sandbox: 'read-only',
      sandboxNetwork: false,
      sandboxBwrapPath: join(set, '..', 'bin/bwrap'),
    })
    for (const [text, field] of [
      ['sandbox: on\n', 'sandbox'],
      ['sandbox: true\n', 'sandbox'],
      ['sandboxNetwork: maybe\n', 'sandboxNetwork'],
      ['sandboxBwrapPath: ""\n', 'sandboxBwrapPath'],
    ] as const) {
      const file = writeConfig(text)
      const error = thrownBy(() => loadConfig({ file, env: {} })) as Error & { userFacing?: boolean }
      expect(error.message, text).toMatch(new RegExp(`^${file}: ${field}`))
      expect(error.message).not.toContain('\n')
      expect(error.userFacing).toBe(true)
    }
    const bad = writeConfig('sandbox: on\n')
    expect(() => loadConfig({ file: bad, env: {} })).toThrow(
      'sandbox must be one of off, workspace-write, read-only',
    )
  })

  it('refuses an agents row with both exact ids, naming the row', () => {
    const file = writeConfig('agents:\n  - id: a\n    sessionId: x\n    resumeSessionId: y\n')
    expect(() => loadConfig({ file, env: {} })).toThrow(
      /agents\.0: sessionId and resumeSessionId are mutually exclusive/,
    )
  })

  it('fails when two configured homes differ, naming both', () => {
    const file = writeConfig('dshHome: /tmp/one\nskills:\n  dshHome: /tmp/two\n')
    expect(() => loadConfig({ file, env: {} })).toThrow(
      'conflicting harness homes: dshHome resolves to /tmp/one but skills.dshHome resolves to /tmp/two',
    )
    const same = writeConfig('dshHome: /tmp/one\nskills:\n  dshHome: /tmp/one/\n')
    expect(loadConfig({ file: same, env: {} }).home).toBe('/tmp/one')
  })

  it('refuses a YAML alias bomb as a user-facing syntax error naming the file', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]']
    for (const name of 'bcdefg') {
      const previous = String.fromCharCode(name.charCodeAt(0) - 1)
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(', ')}]`)
    }
    const file = writeConfig(`${levels.join('\n')}\n`)
    expect(() => loadConfig({ file, env: {} })).toThrow(new RegExp(`^${file}: invalid YAML: .*alias`))
    expect(thrownBy(() => loadConfig({ file, env: {} }))).toMatchObject({
      code: 'CONFIG_SYNTAX',
      userFacing: true,
    })
  })

  it('refuses a config past MAX_CONFIG_BYTES before parsing it, naming the file and the limit', () => {
    const row = '  - id: a\n'
    const file = writeConfig(`agents:\n${row.repeat(Math.ceil(MAX_CONFIG_BYTES / row.length) + 1)}`)
    const error = thrownBy(() => loadConfig({ file, env: {} }))
    expect(error).toMatchObject({ code: 'CONFIG_TOO_LARGE', userFacing: true })
    expect((error as Error).message).toMatch(
      new RegExp(`^${file}: config file is \\d+ bytes; the limit is ${MAX_CONFIG_BYTES}`),
    )
  })

  it('marks every config error as user-facing', () => {
    const file = writeConfig('agents: 3\n')
    try {
      loadConfig({ file, env: {} })
      expect.unreachable()
    } catch (error) {
      expect(error).toMatchObject({ code: 'CONFIG_INVALID', userFacing: true })
    }
  })
})
