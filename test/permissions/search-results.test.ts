// Read rules reach what grep and glob return: a denied file's lines, counts and name never
// come back from a search of a folder around it (either searcher), whatever the output mode,
// and the answer does not change with what the denied file holds.

import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { PermissionMode } from '../../src/permissions/index.js'
import { keptWarnings } from '../../src/tools/fs/search-rules.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-search-rules-')
const start = useTestHarnesses()

afterEach(() => {
  vi.unstubAllEnvs()
})

const FILES = {
  '.env': 'API_KEY=sk-live-123\n',
  'secret/a.txt': 'TOPSECRET\n',
  'secret/deeper/b.txt': 'TOPSECRET two\n',
  'notes.txt': 'line before\nAPI_KEY is read from the environment\nTOP of the notes\n',
  'src/app.ts': 'const key = process.env.API_KEY\n',
}

function project(files: Record<string, string> = FILES): string {
  const cwd = join(tempDir(), 'proj')
  mkdirSync(join(cwd, '.git'), { recursive: true })
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(cwd, path)), { recursive: true })
    writeFileSync(join(cwd, path), content)
  }
  return cwd
}

type Call = { name: string; arguments: Record<string, unknown> }

interface SearchOptions {
  deny?: string[]
  ask?: string[]
  mode?: PermissionMode
}

/** Runs the calls in one model step of a headless harness; answers their results in order. */
async function results(cwd: string, calls: Call[], options: SearchOptions = {}): Promise<string[]> {
  const { harness } = await start({
    script: [{ toolCalls: calls }, { text: 'done' }],
    ...(options.ask ? { config: { permissions: { ask: options.ask } } } : {}),
    permissions: {
      ...(options.deny ? { disallowedTools: options.deny } : {}),
      ...(options.mode ? { mode: options.mode } : {}),
    },
  })
  const agent = await harness.agents.create({ sessionId: `s-${Math.random()}`, meta: { cwd } })
  await agent.prompt('search')
  return agent.session.events
    .filter((event) => event.type === 'tool/result')
    .map((event) => (event.data as { content: string }).content)
}

const grep = (args: Record<string, unknown>): Call => ({ name: 'grep', arguments: args })
const glob = (args: Record<string, unknown>): Call => ({ name: 'glob', arguments: args })

/** No line of the result names a denied file (by default .env and secret/), and no denied content shows. */
function expectNothingDenied(result: string, names = /^(\.env|secret\/)/): void {
  expect(result).not.toContain('sk-live')
  expect(result).not.toContain('TOPSECRET')
  for (const line of result.split('\n')) expect(line).not.toMatch(names)
}

describe.each(['rg', 'js'] as const)('searches with the %s searcher', (engine) => {
  const useEngine = () => vi.stubEnv('DSH_NO_RG', engine === 'js' ? '1' : '')

  it('grep leaves out a file a Read deny rule names, in every output mode, and says a rule withheld results', async () => {
    useEngine()
    const cwd = project()
    const found = await results(
      cwd,
      [
        grep({ pattern: 'API_KEY', output_mode: 'content' }),
        grep({ pattern: 'API_KEY' }),
        grep({ pattern: 'API_KEY', output_mode: 'count' }),
        grep({ pattern: 'API_KEY', output_mode: 'content', '-C': 5 }),
        grep({ pattern: 'API_KEY.*\\n?.*', output_mode: 'content', multiline: true }),
        grep({ pattern: 'sk-live', output_mode: 'content' }),
      ],
      { deny: ['Read(./.env)'] },
    )
    for (const result of found) expectNothingDenied(result)
    expect(found[0]).toContain('notes.txt:2:API_KEY is read from the environment')
    expect(found[0]).toContain('src/app.ts:1:const key = process.env.API_KEY')
    expect(found[1]).toMatch(/^Found 2 files\n/)
    expect(found[2]).toMatch(/^2 matching lines in 2 files\n/)
    expect(found[5]).toMatch(/^No matches found/)
    for (const result of found) expect(result).toContain('permission rules withhold')
    for (const result of found) expect(result).toContain('Read(./.env)')
  })

  it('grep and glob leave out everything under a denied folder', async () => {
    useEngine()
    const cwd = project()
    const found = await results(
      cwd,
      [
        grep({ pattern: 'TOP', output_mode: 'content' }),
        grep({ pattern: 'TOP' }),
        glob({ pattern: '**/*.txt' }),
        glob({ pattern: '**' }),
        glob({ pattern: `${cwd}/**/*.txt` }),
      ],
      { deny: ['Read(./secret/**)'] },
    )
    for (const result of found) expectNothingDenied(result, /^(\/.*\/)?secret\//)
    expect(found[0]).toContain('notes.txt:3:TOP of the notes')
    expect(found[3]).toContain('.env')
    expect(found[2]).toContain('notes.txt')
    expect(found[3]).toContain('src/app.ts')
    expect(found[4]).toContain('notes.txt')
  })

  it("a deny rule in the project's .claude/settings.json reaches searches too", async () => {
    useEngine()
    const cwd = project({
      ...FILES,
      '.claude/settings.json': JSON.stringify({
        permissions: { deny: ['Read(./.env)', 'Read(./secret/**)'] },
      }),
    })
    const found = await results(cwd, [
      grep({ pattern: 'API_KEY|TOP', output_mode: 'content' }),
      glob({ pattern: '**/*' }),
    ])
    for (const result of found) expectNothingDenied(result)
    expect(found[0]).toContain('notes.txt:2:')
  })

  it('what a denied file holds never changes the answer (no way to guess it one character at a time)', async () => {
    useEngine()
    const cwd = project()
    const tries = ['API_KEY=sk-live-1', 'API_KEY=sk-live-9', 'API_KEY=sk-live-123']
    const found = await results(
      cwd,
      tries.flatMap((pattern) => [
        grep({ pattern, output_mode: 'content' }),
        grep({ pattern }),
        grep({ pattern, output_mode: 'count' }),
      ]),
      { deny: ['Read(./.env)'] },
    )
    for (let i = 0; i < 3; i++) {
      expect(found[i + 3]).toBe(found[i])
      expect(found[i + 6]).toBe(found[i])
    }
  })

  it('a denied file whose name holds a newline cannot pass for two files', async () => {
    useEngine()
    const cwd = project({ ...FILES, 'secret/we\nird.txt': 'TOP\n' })
    const found = await results(
      cwd,
      [
        grep({ pattern: 'TOP' }),
        grep({ pattern: 'TOP', output_mode: 'count' }),
        glob({ pattern: '**/*ird*' }),
      ],
      { deny: ['Read(./secret/**)'] },
    )
    for (const result of found) {
      expect(result).not.toContain('secret/we')
      expect(result).not.toMatch(/^ird/m)
    }
    expect(found[0]).toMatch(/^Found 1 file\nnotes.txt\n/)
  })

  it('an absolute glob pattern is judged by the folder it names, as a path is: no name inside a denied folder is confirmed', async () => {
    useEngine()
    const cwd = project()
    const found = await results(
      cwd,
      [
        glob({ pattern: `${cwd}/secret/deeper/*` }),
        glob({ pattern: `${cwd}/secret/missing/*` }),
        glob({ pattern: `${cwd}/secret/a.txt/*` }),
        glob({ pattern: `${cwd}/secret/*`, path: '.' }),
      ],
      { deny: ['Read(./secret/**)'] },
    )
    // Each is denied before it runs, with the same answer whether the name exists or not.
    for (const result of found) expect(result).toContain('denied by the permission rule Read(./secret/**)')
    for (const result of found)
      expect(result).not.toMatch(/does not exist|is not a folder|No files match|b\.txt/)
  })

  it('a symlink to a denied folder is judged by where it points', async () => {
    useEngine()
    const cwd = project()
    symlinkSync(join(cwd, 'secret'), join(cwd, 'alias'))
    const found = await results(
      cwd,
      [
        grep({ pattern: 'TOP', path: 'alias', output_mode: 'content' }),
        glob({ pattern: '**', path: 'alias' }),
      ],
      { deny: ['Read(./secret/**)'] },
    )
    for (const result of found) expect(result).not.toContain('TOPSECRET')
    for (const result of found) expect(result).not.toMatch(/a\.txt|b\.txt/)
  })

  it('files an ask rule covers are left out of a wider search, which says to read them to be asked', async () => {
    useEngine()
    const cwd = project()
    const found = await results(cwd, [grep({ pattern: 'API_KEY', output_mode: 'content' })], {
      ask: ['Read(./.env)'],
    })
    expectNothingDenied(found[0]!)
    expect(found[0]).toContain('notes.txt:2:')
    expect(found[0]).toMatch(/need approval.*Read\(\.\/\.env\)/)
    // bypassPermissions answers every ask: nothing is left out.
    const bypass = await results(cwd, [grep({ pattern: 'API_KEY', output_mode: 'content' })], {
      ask: ['Read(./.env)'],
      mode: 'bypassPermissions',
    })
    expect(bypass[0]).toContain('.env:1:API_KEY=sk-live-123')
  })
})

describe('keptWarnings', () => {
  const keep = (path: string) => !path.startsWith('/p/secret')
  it('shows a problem about a kept file, and none about a withheld file or one it cannot place', () => {
    expect(
      keptWarnings(
        [
          'rg: /p/notes.txt: Permission denied (os error 13)',
          'rg: /p/secret/a.txt: Permission denied (os error 13)',
          "/p/secret/b: EACCES: permission denied, open '/p/secret/b'",
          'rg: /p/no colon here',
          'rg: regex parse error:',
        ],
        keep,
      ),
    ).toEqual(['rg: /p/notes.txt: Permission denied (os error 13)', 'rg: regex parse error:'])
  })
})

describe('the search filter fails closed', () => {
  it('a search whose results cannot be checked against the rules is refused, not answered unfiltered', async () => {
    const cwd = project()
    const { harness } = await start({
      script: [{ toolCalls: [grep({ pattern: 'API_KEY', output_mode: 'content' })] }, { text: 'done' }],
      permissions: { disallowedTools: ['Read(./.env)'] },
    })
    const permissions = harness.ctx.permissions as unknown as { searchFilter: () => never }
    permissions.searchFilter = () => {
      throw new Error('rules could not be read')
    }
    const agent = await harness.agents.create({ sessionId: 'closed', meta: { cwd } })
    await agent.prompt('search')
    const result = agent.session.events.find((event) => event.type === 'tool/result')!.data as {
      content: string
      isError?: boolean
    }
    expect(result.content).toContain('rules could not be read')
    expect(result.content).not.toContain('API_KEY')
  })
})
