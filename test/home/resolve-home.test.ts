// The harness home: explicit > $DSH_HOME (blank = unset) > ~/.dsh, tilde, absolute, conflicts.

import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isDshError } from '../../src/core/errors.js'
import { absolutePath, HomeErrorCode, resolveConfiguredHome, resolveDshHome } from '../../src/home/index.js'

describe('resolveDshHome', () => {
  it('prefers an explicit value, then $DSH_HOME, then ~/.dsh', () => {
    expect(resolveDshHome('/explicit', { DSH_HOME: '/env' })).toBe('/explicit')
    expect(resolveDshHome(undefined, { DSH_HOME: '/env' })).toBe('/env')
    expect(resolveDshHome(undefined, {})).toBe(join(homedir(), '.dsh'))
  })

  it('treats blank values as unset', () => {
    expect(resolveDshHome('  ', { DSH_HOME: '/env' })).toBe('/env')
    expect(resolveDshHome('', { DSH_HOME: ' \t' })).toBe(join(homedir(), '.dsh'))
  })

  it('expands ~ and makes relative paths absolute', () => {
    expect(resolveDshHome('~', {})).toBe(homedir())
    expect(resolveDshHome('~/state/dsh', {})).toBe(join(homedir(), 'state', 'dsh'))
    expect(resolveDshHome(undefined, { DSH_HOME: 'rel/home' })).toBe(resolve(process.cwd(), 'rel/home'))
    expect(resolveDshHome('/a/b/../c/', {})).toBe('/a/c')
    expect(absolutePath('~other')).toBe(resolve(process.cwd(), '~other')) // only a leading "~" or "~/" is the home
  })
})

describe('resolveConfiguredHome', () => {
  it('accepts two values that name the same folder', () => {
    expect(resolveConfiguredHome({ dshHome: '~/x', skillsDshHome: join(homedir(), 'x/') }, {})).toBe(
      join(homedir(), 'x'),
    )
  })

  it('uses whichever one is configured, else the environment', () => {
    expect(resolveConfiguredHome({ skillsDshHome: '/skills' }, { DSH_HOME: '/env' })).toBe('/skills')
    expect(resolveConfiguredHome({ dshHome: '/top' }, { DSH_HOME: '/env' })).toBe('/top')
    expect(resolveConfiguredHome({ dshHome: ' ' }, { DSH_HOME: '/env' })).toBe('/env')
  })

  it('fails naming both when they resolve to different folders', () => {
    let error: unknown
    try {
      resolveConfiguredHome({ dshHome: '/one', skillsDshHome: '~/two' }, {})
    } catch (caught) {
      error = caught
    }
    expect(isDshError(error, HomeErrorCode.Conflict)).toBe(true)
    expect((error as { userFacing: boolean }).userFacing).toBe(true)
    expect((error as Error).message).toContain('/one')
    expect((error as Error).message).toContain(join(homedir(), 'two'))
  })
})
