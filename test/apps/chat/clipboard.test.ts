// The chat's clipboard reader with stand-ins for wl-paste and xclip on PATH (no Wayland
// compositor or X server runs in the test machine, so the real tools have no clipboard).
// Each stand-in logs its arguments, so the calls dsh makes are checked too.

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { NO_CLIPBOARD_TOOL, readClipboardImage } from '../../../src/apps/chat/clipboard.js'
import { pngImage, writeImage } from '../../support/images.js'
import { useTempDirs } from '../../support/temp-dir.js'

const makeDir = useTempDirs('dsh-clipboard-')

/** A stand-in tool: prints `types` for a listing call, the file for a read, logs every call. */
function fakeTool(bin: string, name: string, types: string[], image: string, log: string): void {
  const listing = name === 'wl-paste' ? '*--list-types*' : '*TARGETS*'
  writeFileSync(
    join(bin, name),
    `#!/bin/sh\necho "$*" >> '${log}'\ncase "$*" in\n  ${listing}) printf '${types.join('\\n')}\\n' ;;\n  *image/png*) cat '${image}' ;;\n  *) exit 1 ;;\nesac\n`,
  )
  chmodSync(join(bin, name), 0o755)
}

describe('readClipboardImage', () => {
  it('reads PNG through wl-paste on Wayland, through xclip otherwise; says when there is no image or no tool', async () => {
    const dir = makeDir()
    const bin = join(dir, 'bin')
    mkdirSync(bin)
    const png = await pngImage(10, 10)
    const image = writeImage(dir, 'clip.png', png)
    const log = join(dir, 'calls.log')
    fakeTool(bin, 'wl-paste', ['text/plain', 'image/png'], image, log)
    fakeTool(bin, 'xclip', ['TARGETS', 'image/png'], image, log)
    // The stand-ins first; the system's folders after them for `cat`.
    const PATH = `${bin}${delimiter}${process.env.PATH ?? ''}`

    expect(await readClipboardImage({ PATH, WAYLAND_DISPLAY: 'wayland-0' })).toEqual(png)
    expect(await readClipboardImage({ PATH })).toEqual(png)
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([
      '--list-types',
      '--no-newline --type image/png',
      '-selection clipboard -o -t TARGETS',
      '-selection clipboard -o -t image/png',
    ])

    fakeTool(bin, 'xclip', ['TARGETS', 'UTF8_STRING'], image, log)
    await expect(readClipboardImage({ PATH })).rejects.toThrow(
      'the clipboard holds no image (paste text with the terminal)',
    )
    await expect(readClipboardImage({ PATH: join(dir, 'nothing') })).rejects.toThrow(NO_CLIPBOARD_TOOL)
  })
})
