import { describe, expect, it } from 'vitest'
import { compileMatcher } from '../../src/hooks/index.js'

const noWarn = (message: string) => {
  throw new Error(`unexpected warning: ${message}`)
}

describe('Claude Code matchers', () => {
  it.each([undefined, '', '*'])('%s matches everything', (matcher) => {
    expect(compileMatcher(matcher, 'claude-code', noWarn)(['anything'])).toBe(true)
  })

  it('treats letters, digits, _ and | as exact names with alternation', () => {
    const match = compileMatcher('Edit|Write', 'claude-code', noWarn)
    expect(match(['Write'])).toBe(true)
    expect(match(['Edit'])).toBe(true)
    expect(match(['WriteFile'])).toBe(false)
    expect(match(['MultiEdit'])).toBe(false)
  })

  it('uses a regex for anything else', () => {
    const match = compileMatcher('mcp__.*', 'claude-code', noWarn)
    expect(match(['mcp__memory__read'])).toBe(true)
    expect(match(['Bash'])).toBe(false)
    expect(compileMatcher('Notebook.*', 'claude-code', noWarn)(['NotebookEdit'])).toBe(true)
  })

  it('matches when any candidate name matches', () => {
    const match = compileMatcher('Bash', 'claude-code', noWarn)
    expect(match(['Bash', 'bash'])).toBe(true)
    expect(compileMatcher('bash', 'claude-code', noWarn)(['Bash', 'bash'])).toBe(true)
  })
})

describe('Codex matchers', () => {
  it('are always unanchored regexes', () => {
    expect(compileMatcher('Bash', 'codex', noWarn)(['MyBashTool'])).toBe(true)
    expect(compileMatcher('^Bash$', 'codex', noWarn)(['MyBashTool'])).toBe(false)
    expect(compileMatcher('startup|resume', 'codex', noWarn)(['resume'])).toBe(true)
  })

  it.each([undefined, '', '*'])('%s matches everything', (matcher) => {
    expect(compileMatcher(matcher, 'codex', noWarn)(['x'])).toBe(true)
  })
})

describe('invalid regexes', () => {
  it.each(['claude-code', 'codex'] as const)('warn once and never match (%s)', (dialect) => {
    const warnings: string[] = []
    const match = compileMatcher('Bash(', dialect, (message) => warnings.push(message))
    expect(warnings).toHaveLength(1)
    expect(match(['Bash('])).toBe(false)
    expect(match(['Bash'])).toBe(false)
  })
})
