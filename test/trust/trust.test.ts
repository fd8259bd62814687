import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { decideProjectTrust, ProjectTrustStore, TRUST_FILE_NAME } from '../../src/trust/index.js'
import { useTempDirs } from '../support/temp-dir.js'

describe('ProjectTrustStore', () => {
  const makeDir = useTempDirs()

  it('remembers trusted folders across instances and covers their subfolders', () => {
    const home = makeDir()
    new ProjectTrustStore(home).trust('/src/repo', 5)
    const store = new ProjectTrustStore(home)
    expect(store.isTrusted('/src/repo')).toBe(true)
    expect(store.isTrusted('/src/repo/packages/a')).toBe(true)
    expect(store.isTrusted('/src/repo-other')).toBe(false)
    expect(store.list()).toEqual([{ folder: '/src/repo', trustedAt: 5 }])
    expect(statSync(store.path).mode & 0o777).toBe(0o600)
    expect(store.untrust('/src/repo')).toBe(true)
    expect(store.isTrusted('/src/repo/packages/a')).toBe(false)
    expect(store.untrust('/src/repo')).toBe(false)
  })

  it('refuses a damaged file in one line naming it, and never rewrites it silently', () => {
    const home = makeDir()
    const store = new ProjectTrustStore(home)
    writeFileSync(store.path, '{"folders": "everything"}')
    expect(() => store.isTrusted('/x')).toThrow(`${store.path} is damaged`)
    expect(() => store.trust('/x')).toThrow(/damaged/)
    expect(readFileSync(store.path, 'utf8')).toBe('{"folders": "everything"}')
  })
})

describe('decideProjectTrust', () => {
  const makeDir = useTempDirs()

  it('headless refuses a folder never trusted, --trust-project grants it; interactive asks once; --no-project-config', async () => {
    const store = new ProjectTrustStore(makeDir())
    const folder = join(makeDir(), 'repo')
    expect(await decideProjectTrust(store, { folder, frontEnd: 'headless' })).toEqual({
      trusted: false,
      reason: 'untrusted',
    })
    expect(store.isTrusted(folder)).toBe(false)
    expect(await decideProjectTrust(store, { folder, frontEnd: 'headless', disabled: true })).toEqual({
      trusted: false,
      reason: 'disabled',
    })
    expect(await decideProjectTrust(store, { folder, frontEnd: 'interactive' })).toEqual({
      trusted: false,
      reason: 'cannot-ask',
    })
    const asked: string[][] = []
    const no = async (_folder: string, brings: readonly string[]) => {
      asked.push([...brings])
      return false
    }
    expect(
      await decideProjectTrust(store, { folder, frontEnd: 'interactive', ask: no, brings: ['1 hook'] }),
    ).toEqual({
      trusted: false,
      reason: 'declined',
    })
    expect(asked).toEqual([['1 hook']])
    const yes = async () => true
    expect((await decideProjectTrust(store, { folder, frontEnd: 'interactive', ask: yes })).reason).toBe(
      'accepted',
    )
    expect((await decideProjectTrust(store, { folder, frontEnd: 'interactive', ask: no })).reason).toBe(
      'remembered',
    )
    expect((await decideProjectTrust(store, { folder, frontEnd: 'headless' })).reason).toBe('remembered')
    const other = join(makeDir(), 'other')
    expect(await decideProjectTrust(store, { folder: other, frontEnd: 'headless', granted: true })).toEqual({
      trusted: true,
      reason: 'granted',
    })
    // For that run only: nothing is remembered.
    expect((await decideProjectTrust(store, { folder: other, frontEnd: 'headless' })).reason).toBe(
      'untrusted',
    )
  })

  it('trust is bound to the content of .mcp.json, hook and permission files', async () => {
    const store = new ProjectTrustStore(makeDir())
    const folder = makeDir()
    writeFileSync(join(folder, '.mcp.json'), '{"mcpServers":{}}')
    await decideProjectTrust(store, { folder, frontEnd: 'interactive', ask: async () => true })
    // Unrelated files change nothing.
    writeFileSync(join(folder, 'README.md'), 'hi')
    expect((await decideProjectTrust(store, { folder, frontEnd: 'headless' })).reason).toBe('remembered')
    mkdirSync(join(folder, '.claude'))
    writeFileSync(join(folder, '.claude', 'settings.json'), '{"permissions":{"allow":["Bash"]}}')
    writeFileSync(join(folder, '.mcp.json'), '{"mcpServers":{"evil":{"command":"sh"}}}')
    const changed = ['.mcp.json', '.claude/settings.json']
    expect(await decideProjectTrust(store, { folder, frontEnd: 'headless' })).toEqual({
      trusted: false,
      reason: 'changed',
      changed,
    })
    const asked: string[][] = []
    const decision = await decideProjectTrust(store, {
      folder,
      frontEnd: 'interactive',
      brings: ['MCP server evil'],
      ask: async (_folder, brings) => asked.push([...brings]) > 0,
    })
    expect(decision.reason).toBe('accepted')
    expect(asked).toEqual([
      ['changed since you trusted it: .mcp.json, .claude/settings.json', 'MCP server evil'],
    ])
    expect((await decideProjectTrust(store, { folder, frontEnd: 'headless' })).reason).toBe('remembered')
    // A deleted file is a change too.
    rmSync(join(folder, '.claude', 'settings.json'))
    expect((await decideProjectTrust(store, { folder, frontEnd: 'headless' })).changed).toEqual([
      '.claude/settings.json',
    ])
  })

  it('a folder trusted before content was recorded, or only through a parent, asks again about configuration nobody saw', async () => {
    const home = makeDir()
    const parent = makeDir()
    const folder = join(parent, 'repo')
    mkdirSync(folder)
    writeFileSync(join(folder, '.mcp.json'), '{}')
    writeFileSync(
      join(home, TRUST_FILE_NAME),
      JSON.stringify({ version: 1, folders: [{ folder, trustedAt: 1 }] }),
    )
    const store = new ProjectTrustStore(home)
    expect(await decideProjectTrust(store, { folder, frontEnd: 'headless' })).toMatchObject({
      trusted: false,
      changed: ['.mcp.json'],
    })
    store.untrust(folder)
    // The parent is trusted with its own content; the nested project's `.mcp.json` (which
    // the model may have written) was never seen: refused headless, asked about in chat.
    store.trust(parent, 2, {})
    expect(await decideProjectTrust(store, { folder, frontEnd: 'headless' })).toEqual({
      trusted: false,
      reason: 'changed',
      changed: ['.mcp.json'],
    })
    const asked: string[][] = []
    const ask = async (_folder: string, brings: readonly string[]) => {
      asked.push([...brings])
      return true
    }
    expect((await decideProjectTrust(store, { folder, frontEnd: 'interactive', ask })).reason).toBe(
      'accepted',
    )
    expect(asked).toEqual([['changed since you trusted it: .mcp.json']])
    expect((await decideProjectTrust(store, { folder, frontEnd: 'headless' })).reason).toBe('remembered')
    writeFileSync(join(folder, '.mcp.json'), '{"mcpServers":{}}')
    expect((await decideProjectTrust(store, { folder, frontEnd: 'headless' })).reason).toBe('changed')
    // A nested folder without configuration files takes its empty content as first seen,
    // and a file that appears later is a change.
    const plain = join(parent, 'plain')
    mkdirSync(plain)
    expect((await decideProjectTrust(store, { folder: plain, frontEnd: 'headless' })).reason).toBe(
      'remembered',
    )
    writeFileSync(join(plain, '.mcp.json'), '{}')
    expect(await decideProjectTrust(store, { folder: plain, frontEnd: 'headless' })).toMatchObject({
      trusted: false,
      changed: ['.mcp.json'],
    })
  })
})

describe('ProjectTrustService.askWith', () => {
  const makeDir = useTempDirs()

  it('asks through a front end registered later, and stops when that plugin unloads', async () => {
    const { Context } = await import('cordis')
    const { ProjectTrustService } = await import('../../src/trust/index.js')
    const ctx = new Context()
    const home = makeDir()
    await ctx.plugin(ProjectTrustService, { home, frontEnd: 'interactive' }).await()
    const asked: string[] = []
    const front = ctx.plugin({
      name: 'late-front-end',
      apply(inner: typeof ctx) {
        inner.get('projectTrust')!.askWith(async (folder, brings) => {
          asked.push(`${folder}: ${brings.join(', ')}`)
          return folder.endsWith('yes')
        })
      },
    })
    await front.await()
    const trust = ctx.get('projectTrust')!
    expect(await trust.decide('/p/yes', ['1 hook'])).toEqual({ trusted: true, reason: 'accepted' })
    expect(await trust.decide('/p/no', ['1 skill'])).toEqual({ trusted: false, reason: 'declined' })
    // Once per folder: the remembered answers, no second question.
    expect(await trust.decide('/p/no')).toEqual({ trusted: false, reason: 'declined' })
    expect(asked).toEqual(['/p/yes: 1 hook', '/p/no: 1 skill'])
    expect(trust.store.isTrusted('/p/yes')).toBe(true)
    await front.dispose()
    expect(await trust.decide('/p/other')).toEqual({ trusted: false, reason: 'cannot-ask' })
    expect(asked).toHaveLength(2)
  })
})
