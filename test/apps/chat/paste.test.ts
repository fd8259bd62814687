// Which pastes are image files: the shapes terminals paste for a dropped file.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { pastedImagePaths } from '../../../src/apps/chat/paste.js'
import { useTempDirs } from '../../support/temp-dir.js'

const makeDir = useTempDirs('dsh-paste-')

describe('pastedImagePaths', () => {
  it('reads quoted, escaped, file:// and several paths; anything else is text', () => {
    const dir = makeDir()
    mkdirSync(join(dir, 'a b'))
    const spaced = join(dir, 'a b', 'my shot.png')
    const plain = join(dir, 'x.JPG')
    writeFileSync(spaced, 'x')
    writeFileSync(plain, 'x')
    writeFileSync(join(dir, 'notes.txt'), 'x')
    expect(pastedImagePaths(`'${spaced}'`, dir)).toEqual([spaced])
    expect(pastedImagePaths(`"${spaced}"\n`, dir)).toEqual([spaced])
    expect(pastedImagePaths(spaced.replace(/ /g, '\\ '), dir)).toEqual([spaced])
    expect(pastedImagePaths(pathToFileURL(spaced).href, dir)).toEqual([spaced])
    expect(pastedImagePaths(`'${spaced}' ${plain}`, dir)).toEqual([spaced, plain])
    expect(pastedImagePaths('x.JPG', dir)).toEqual([plain])
    expect(pastedImagePaths(join(dir, 'notes.txt'), dir)).toBeUndefined()
    expect(pastedImagePaths(join(dir, 'missing.png'), dir)).toBeUndefined()
    expect(pastedImagePaths(`look at ${plain}`, dir)).toBeUndefined()
    expect(pastedImagePaths(`'${spaced}`, dir)).toBeUndefined()
    expect(pastedImagePaths('', dir)).toBeUndefined()
    expect(pastedImagePaths(dir, dir)).toBeUndefined()
  })
})
