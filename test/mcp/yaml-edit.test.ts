// Editing `mcpServers` in a YAML config by splicing text: every other byte stays, the result
// always parses to what was meant, and layouts the splice cannot handle are re-printed.

import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { addServerToYaml, removeServerFromYaml } from '../../src/mcp/yaml-edit.js'

const entry = { command: 'node', args: ['server.js', '--read-only'], env: { MODE: 'ro' } }

describe('addServerToYaml', () => {
  it('appends an mcpServers map after what the user wrote, untouched', () => {
    const text = '# mine\nmodel:\n  baseUrl: http://127.0.0.1:1/v1   # loopback\n'
    const added = addServerToYaml(text, 'db', entry)
    expect(added.startsWith(text)).toBe(true)
    expect(parse(added)).toEqual({ model: { baseUrl: 'http://127.0.0.1:1/v1' }, mcpServers: { db: entry } })
  })

  it('adds to an existing block map at its indentation, before what follows it', () => {
    const text =
      'mcpServers:\n    old:\n        command: one   # first\n# next section\nsecrets:\n  names: [X]\n'
    const added = addServerToYaml(text, 'db', entry)
    expect(added).toContain('    old:\n        command: one   # first\n    db:\n')
    expect(added.endsWith('# next section\nsecrets:\n  names: [X]\n')).toBe(true)
    expect(parse(added).mcpServers).toEqual({ old: { command: 'one' }, db: entry })
  })

  it('handles an empty file, one with comments only, and one without a final newline', () => {
    expect(parse(addServerToYaml('', 'db', entry))).toEqual({ mcpServers: { db: entry } })
    const commented = addServerToYaml('# nothing yet\n', 'db', entry)
    expect(commented.startsWith('# nothing yet\n')).toBe(true)
    expect(parse(commented)).toEqual({ mcpServers: { db: entry } })
    expect(parse(addServerToYaml('model: {}', 'db', entry))).toEqual({ model: {}, mcpServers: { db: entry } })
  })

  it('re-prints a flow-style map it cannot splice, still meaning the same', () => {
    const added = addServerToYaml('mcpServers: { old: { command: one } }\nmodel: {}\n', 'db', entry)
    expect(parse(added)).toEqual({ mcpServers: { old: { command: 'one' }, db: entry }, model: {} })
  })
})

describe('removeServerFromYaml', () => {
  const text = [
    '# mine',
    'mcpServers:',
    '  first: { command: a }   # kept',
    '  db:',
    '    command: node',
    '    args: [server.js]',
    '  last:',
    '    command: z',
    'model:',
    '  baseUrl: http://127.0.0.1:1/v1',
    '',
  ].join('\n')

  it('cuts only the lines of that entry', () => {
    expect(removeServerFromYaml(text, 'db')).toBe(
      text.replace('  db:\n    command: node\n    args: [server.js]\n', ''),
    )
    expect(removeServerFromYaml(text, 'last')).toBe(text.replace('  last:\n    command: z\n', ''))
  })

  it('removes the mcpServers key with its last entry', () => {
    const one = '# mine\nmcpServers:\n  db:\n    command: node\nmodel: {}\n'
    expect(removeServerFromYaml(one, 'db')).toBe('# mine\nmodel: {}\n')
    expect(parse(removeServerFromYaml('mcpServers:\n  db: { command: x }\n', 'db')) ?? {}).toEqual({})
  })
})
