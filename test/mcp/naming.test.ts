// Model-facing MCP tool names: at most 64 characters of [A-Za-z0-9_-] (what the Chat
// Completions API accepts), unchanged up to that length, and two long names never collide.

import { describe, expect, it } from 'vitest'
import { mcpToolName, mcpToolNames, normalizeName, serverOfToolName } from '../../src/mcp/index.js'

const API_NAME = /^[A-Za-z0-9_-]{1,64}$/

describe('mcpToolName', () => {
  it('keeps a name of exactly 64 characters as it is, and cuts one of 65 to exactly 64', () => {
    const prefix = 'mcp__srv__' // 10 characters
    const exact = 'a'.repeat(64 - prefix.length)
    expect(mcpToolName('srv', exact)).toBe(`${prefix}${exact}`)
    expect(mcpToolName('srv', exact)).toHaveLength(64)

    const over = mcpToolName('srv', `${exact}b`)
    expect(over).toHaveLength(64)
    expect(over).toMatch(API_NAME)
    expect(over).toMatch(/^mcp__srv__a+_[0-9a-f]{8}$/)
  })

  it('gives two long names sharing their first 64 characters different names, the same each time', () => {
    const stem = 'x'.repeat(80)
    const first = mcpToolName('server', `${stem}_one`)
    const second = mcpToolName('server', `${stem}_two`)
    expect(first).not.toBe(second)
    expect(first).toMatch(API_NAME)
    expect(second).toMatch(API_NAME)
    expect(mcpToolName('server', `${stem}_one`)).toBe(first)
    expect(serverOfToolName(first)).toBe('server')
  })

  it('writes characters the API refuses as _ and never yields an empty part', () => {
    expect(normalizeName('my server.v2/ü')).toBe('my_server_v2__')
    expect(normalizeName('')).toBe('_')
    expect(mcpToolName('a b', 'c.d')).toBe('mcp__a_b__c_d')
    for (const length of [1, 50, 54, 55, 56, 100, 300]) {
      expect(mcpToolName('s', 'é'.repeat(length)), String(length)).toMatch(API_NAME)
    }
  })
})

describe('mcpToolNames', () => {
  it('gives tools whose names clash once made safe distinct names, the same whatever their order', () => {
    const long = 'x'.repeat(80)
    const tools = ['get.user', 'get_user', 'get/user', `${long}.one`, `${long}_one`, 'echo']
    const names = mcpToolNames('odd', tools)
    expect(new Set(names).size).toBe(tools.length)
    for (const name of names) expect(name).toMatch(API_NAME)
    // A name that needed no change keeps it; the others end in a hash of their own name.
    expect(names[1]).toBe('mcp__odd__get_user')
    expect(names[5]).toBe('mcp__odd__echo')
    expect(names[0]).toMatch(/^mcp__odd__get_user_[0-9a-f]{8}$/)
    const reversed = mcpToolNames('odd', [...tools].reverse()).reverse()
    expect(reversed).toEqual(names)
    // Without the clash a tool keeps its plain name.
    expect(mcpToolNames('odd', ['get.user'])).toEqual(['mcp__odd__get_user'])
  })
})
