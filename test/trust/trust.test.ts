import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { decideProjectTrust, ProjectTrustStore } from '../../src/trust/index.js'
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

  it('trusts headless front ends, asks interactive ones once, and honours --no-project-config', async () => {
    const store = new ProjectTrustStore(makeDir())
    const folder = join(makeDir(), 'repo')
    expect(await decideProjectTrust(store, { folder, frontEnd: 'headless' })).toEqual({
      trusted: true,
      reason: 'headless',
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
