import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findProjectRoot, foldersFromRoot } from '../../src/core/index.js'
import { useTempDirs } from '../support/temp-dir.js'

describe('findProjectRoot', () => {
  const makeDir = useTempDirs()

  it('finds the nearest ancestor holding .git or .dsh', () => {
    const top = makeDir()
    mkdirSync(join(top, 'repo/.git'), { recursive: true })
    mkdirSync(join(top, 'repo/packages/app/src'), { recursive: true })
    expect(findProjectRoot(join(top, 'repo/packages/app/src'), { homeDir: '/nonexistent' })).toBe(
      join(top, 'repo'),
    )
    mkdirSync(join(top, 'repo/packages/app/.dsh'))
    expect(findProjectRoot(join(top, 'repo/packages/app/src'), { homeDir: '/nonexistent' })).toBe(
      join(top, 'repo/packages/app'),
    )
  })

  it('never answers the home folder, and falls back to the cwd', () => {
    const home = makeDir()
    mkdirSync(join(home, '.dsh'))
    mkdirSync(join(home, 'scratch/notes'), { recursive: true })
    expect(findProjectRoot(join(home, 'scratch/notes'), { homeDir: home })).toBe(join(home, 'scratch/notes'))
    expect(findProjectRoot(home, { homeDir: home })).toBe(home)
  })

  it('lists the folders from the root down to the cwd', () => {
    expect(foldersFromRoot('/a', '/a/b/c')).toEqual(['/a', '/a/b', '/a/b/c'])
    expect(foldersFromRoot('/a', '/a')).toEqual(['/a'])
    expect(foldersFromRoot('/x', '/a/b')).toEqual(['/a/b'])
  })
})
