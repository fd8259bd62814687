// glob, grep (both searchers), ls and todo_write against real trees with nested .gitignore.

import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findRipgrep } from '../../../src/tools/fs/index.js'
import { useFsRigs } from './support.js'

const rig = useFsRigs()

function tree(root: string, files: Record<string, string>, baseTime = 1_700_000_000): void {
  let offset = 0
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path)
    mkdirSync(dirname(full), { recursive: true })
    writeFileSync(full, content)
    const when = new Date((baseTime + offset++ * 10) * 1000)
    utimesSync(full, when, when)
  }
}

const PROJECT = {
  '.gitignore': 'dist/\n*.log\n',
  'src/a.ts': 'export const alpha = 1\n// TODO: alpha\n',
  'src/b.ts': 'export const beta = 2\n',
  'src/gen/.gitignore': 'generated.ts\n!keep.ts\n',
  'src/gen/generated.ts': 'export const alpha = "generated"\n',
  'src/gen/keep.ts': 'export const alpha = "kept"\n',
  'dist/out.ts': 'alpha in dist\n',
  'debug.log': 'alpha in a log\n',
  'README.md': '# alpha project\n',
  '.hidden/h.ts': 'alpha hidden\n',
  'bin.dat': 'alpha\u0000binary',
}

describe('glob', () => {
  it('matches relative to the cwd, honours nested .gitignore, newest first', async () => {
    const { cwd, run } = await rig()
    tree(cwd, PROJECT)
    const result = await run('glob', { pattern: '**/*.ts' })
    expect(result.content.split('\n')).toEqual(['.hidden/h.ts', 'src/gen/keep.ts', 'src/b.ts', 'src/a.ts'])
    expect((await run('glob', { pattern: '*.ts', path: 'src' })).content).toBe('src/b.ts\nsrc/a.ts')
    expect((await run('glob', { pattern: '**/*.py' })).content).toBe('No files match **/*.py')
  })

  it('caps the list and says how many more matched', async () => {
    const { cwd, run } = await rig()
    tree(cwd, Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`f/${i}.txt`, `${i}`])))
    const lines = (await run('glob', { pattern: 'f/*.txt' })).content.split('\n')
    expect(lines).toHaveLength(101)
    expect(lines[0]).toBe('f/129.txt')
    expect(lines[100]).toBe('[30 more files matched; narrow the pattern or path]')
  })
})

const engines = ['js', 'rg'] as const

describe.each(engines)('grep with the %s searcher', (engine) => {
  if (engine === 'rg') it('has rg installed (CI installs ripgrep)', () => expect(findRipgrep()).toBe('rg'))

  it('lists files with matches, honouring nested .gitignore, newest first', async () => {
    const { cwd, run } = await rig({ grep: { engine } })
    tree(cwd, PROJECT)
    const result = await run('grep', { pattern: 'alpha' })
    expect(result.content.split('\n')).toEqual([
      'Found 4 files',
      '.hidden/h.ts',
      'README.md',
      'src/gen/keep.ts',
      'src/a.ts',
    ])
  })

  it('shows content with line numbers and context, and counts', async () => {
    const { cwd, run } = await rig({ grep: { engine } })
    tree(cwd, PROJECT)
    const content = await run('grep', { pattern: 'alpha', output_mode: 'content', path: 'src', '-A': 1 })
    expect(content.content).toBe(
      [
        'src/a.ts:1:export const alpha = 1',
        'src/a.ts:2:// TODO: alpha',
        'src/gen/keep.ts:1:export const alpha = "kept"',
      ].join('\n'),
    )
    const ctx = await run('grep', { pattern: 'TODO', output_mode: 'content', '-B': 1 })
    expect(ctx.content).toBe('src/a.ts-1-export const alpha = 1\nsrc/a.ts:2:// TODO: alpha')
    const count = await run('grep', { pattern: 'ALPHA', '-i': true, output_mode: 'count', glob: '*.ts' })
    expect(count.content.split('\n')).toEqual([
      '4 matching lines in 3 files',
      '.hidden/h.ts:1',
      'src/a.ts:2',
      'src/gen/keep.ts:1',
    ])
  })

  it('filters by type, searches one file, and reports no match and bad regexes', async () => {
    const { cwd, run } = await rig({ grep: { engine } })
    tree(cwd, PROJECT)
    expect((await run('grep', { pattern: 'alpha', type: 'md' })).content).toBe('Found 1 file\nREADME.md')
    expect((await run('grep', { pattern: 'beta', path: 'src/b.ts', output_mode: 'content' })).content).toBe(
      'src/b.ts:1:export const beta = 2',
    )
    expect((await run('grep', { pattern: 'zzz' })).content).toBe('No matches found')
    const bad = await run('grep', { pattern: '(unclosed' })
    expect(bad.isError).toBe(true)
    expect(bad.content).toMatch(/^grep: .*regex parse error/s)
  })

  it('caps content output with a note', async () => {
    const { cwd, run } = await rig({ grep: { engine } })
    tree(cwd, { 'many.txt': 'hit\n'.repeat(300) })
    const lines = (await run('grep', { pattern: 'hit', output_mode: 'content' })).content.split('\n')
    expect(lines).toHaveLength(251)
    expect(lines[250]).toBe('[50 more lines not shown; narrow the search or raise head_limit]')
  })

  it('matches across lines in multiline mode', async () => {
    const { cwd, run } = await rig({ grep: { engine } })
    tree(cwd, { 'm.ts': 'function f(\n  a,\n) {}\nother\n' })
    const result = await run('grep', { pattern: 'f\\(.*?\\)', multiline: true, output_mode: 'content' })
    expect(result.content).toBe('m.ts:1:function f(\nm.ts:2:  a,\nm.ts:3:) {}')
  })
})

describe('ls', () => {
  it('lists folders first, leaves out .git and ignored entries', async () => {
    const { cwd, run } = await rig()
    tree(cwd, { ...PROJECT, '.git/HEAD': 'ref\n' })
    const result = await run('ls', {})
    expect(result.content).toBe(
      [
        './',
        '  .hidden/',
        '  src/',
        '  .gitignore',
        '  bin.dat',
        '  README.md',
        '[2 entries ignored by .gitignore]',
      ].join('\n'),
    )
    expect((await run('ls', { path: 'src', ignore: ['gen'] })).content).toBe('src/\n  a.ts\n  b.ts')
    expect((await run('ls', { path: 'nope' })).isError).toBe(true)
  })
})

describe('todo_write', () => {
  it('logs the whole list as a snapshot and shows it', async () => {
    const { run, agent } = await rig()
    const todos = [
      { content: 'Read the code', status: 'completed' },
      { content: 'Fix the bug', status: 'in_progress', activeForm: 'Fixing the bug' },
      { content: 'Run the tests', status: 'pending' },
    ]
    const result = await run('todo_write', { todos })
    expect(result.content).toBe(
      'Task list updated (1/3 done)\n[x] Read the code\n[~] Fix the bug\n[ ] Run the tests',
    )
    expect(agent.session.events.filter((e) => e.type === 'todo/update').map((e) => e.data)).toEqual([
      { todos },
    ])
    expect((await run('todo_write', { todos: [{ content: 'x', status: 'bogus' }] })).isError).toBe(true)
  })
})

describe('rg runs with the environment a command gets', () => {
  const rg = findRipgrep()
  it.runIf(rg !== undefined || process.env.CI)(
    'so its own /proc/self/environ holds no key of dsh',
    async () => {
      const { searchWithRipgrep } = await import('../../../src/tools/fs/grep-rg.js')
      process.env.DSH_TEST_RG_API_KEY = 'sk-rg-environ-1234567890'
      try {
        const outcome = await searchWithRipgrep(rg!, {
          pattern: 'RG_API_KEY|PATH=',
          target: '/proc/self/environ',
          targetIsFile: true,
          ignoreCase: false,
          multiline: false,
          mode: 'content',
          before: 0,
          after: 0,
          signal: new AbortController().signal,
        })
        const text = JSON.stringify(outcome)
        expect(text).toContain('PATH=') // it read its environment
        expect(text).not.toContain('sk-rg-environ')
      } finally {
        delete process.env.DSH_TEST_RG_API_KEY
      }
    },
  )
})
