// The house rules of src/ (docs/architecture.md), measured by scripts/structure.mjs: no
// import runs up the layers except at most five commented exceptions, no file circles, no
// app reaching into another app (they share through src/apps/shared), and no file over 400
// lines outside the places named below, which other work is taking apart (they may only
// shrink). The figures are in bench/RESULTS.md.

import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs script without types.
import { measure } from '../../scripts/structure.mjs'
import { useTempDirs } from '../support/temp-dir.js'

interface Report {
  files: number
  fileCircles: string[][]
  folderCircles: string[][]
  upward: string[]
  appToApp: string[]
  exceptions: string[]
  overLimit: { file: string; lines: number }[]
  largest: { file: string; lines: number }
}

/** Files over the limit today, still to be split: at most this long (they may only shrink). */
const BEING_SPLIT: Record<string, number> = {}

describe('the structure of src/', () => {
  const report = measure(resolve('.')) as Report

  it('no import runs up the layers, but for at most five commented exceptions', () => {
    expect(report.upward).toEqual([])
    expect(report.exceptions.length).toBeLessThanOrEqual(5)
  })

  it('no file circles', () => {
    expect(report.fileCircles).toEqual([])
  })

  it('no folder circles, between subsystems or apps (a leaf module or a marked exception ties no two folders)', () => {
    expect(report.folderCircles).toEqual([])
  })

  it('no app imports another app', () => {
    expect(report.appToApp).toEqual([])
  })

  it('no file over 400 lines, but those being split, which may only shrink', () => {
    const over = report.overLimit.filter((size) => !(size.lines <= (BEING_SPLIT[size.file] ?? 400)))
    expect(over).toEqual([])
  })

  it('finds what it measures (the script itself)', () => {
    expect(report.files).toBeGreaterThan(300)
    expect(report.largest.lines).toBeGreaterThan(100)
    // The session store's reach into the persistence seam is a marked exception.
    expect(report.exceptions.some((line) => line.startsWith('src/session/store.ts'))).toBe(true)
  })
})

describe('the checker', () => {
  const makeDir = useTempDirs('dsh-structure-')

  /** A src/ tree of the given files (path under src/ → text). */
  const tree = (files: Record<string, string>): string => {
    const root = makeDir()
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, 'src', path)), { recursive: true })
      writeFileSync(join(root, 'src', path), text)
    }
    return root
  }

  it('reports an app reaching into another, and the shared module importing an app, even lazily', () => {
    const report = measure(
      tree({
        'apps/chat/view.ts': "import { b } from '../web/rows.js'\nimport { s } from '../shared/render.js'\n",
        'apps/web/rows.ts': 'export const b = 1\n',
        'apps/shared/render.ts':
          "import { b } from '../web/rows.js'\nexport const s = await import('../chat/view.js')\n",
        'apps/cli/main.ts': "export const chat = await import('../chat/view.js')\n",
      }),
    ) as Report
    expect(report.appToApp.sort()).toEqual([
      'src/apps/chat/view.ts:1 → src/apps/web/rows.ts',
      'src/apps/shared/render.ts:1 → src/apps/web/rows.ts',
      'src/apps/shared/render.ts:2 → src/apps/chat/view.ts',
    ])
    // The shared module imports the chat and the chat imports it: a circle among the apps.
    expect(report.folderCircles).toEqual([['apps/chat', 'apps/shared']])
  })
})
