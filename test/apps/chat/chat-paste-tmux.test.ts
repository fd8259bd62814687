// Images pasted into the chat in a real terminal: a dropped file path (a bracketed paste,
// quoted or with escaped spaces) and Ctrl-V from the clipboard become `[image: …]` tokens,
// and the request to the strict stand-in carries them as image_url parts; no clipboard tool
// is one line naming the tools to install; a model without images is refused before any request.

import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { pngImage, writeImage } from '../../support/images.js'
import { type ReceivedRequest, useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, makeWorld } from '../cli/cli.js'
import { useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-paste-')
const startChat = useChatTerminals()
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

function imageUrls(request: ReceivedRequest): string[] {
  return request.messages.flatMap((message) =>
    message.role === 'user' && typeof message.content !== 'string'
      ? message.content.flatMap((part) => (part.type === 'image_url' ? [part.image_url.url] : []))
      : [],
  )
}

const dataUrl = (data: Buffer) => `data:image/png;base64,${data.toString('base64')}`

/** PATH without any folder that holds a real clipboard tool, so the test decides which one exists. */
function pathWithoutClipboardTools(path: string): string {
  return path
    .split(delimiter)
    .filter((dir) => {
      try {
        const names = readdirSync(dir)
        return !names.includes('xclip') && !names.includes('wl-paste')
      } catch {
        return false
      }
    })
    .join(delimiter)
}

it('a pasted path, quoted or with escaped spaces, attaches the image; the request carries it', async () => {
  const model = await startModel([{ text: 'Two boxes.' }], { strict: true })
  const w = makeWorld(makeDir(), model.baseUrl)
  const shots = join(w.project, 'screen shots')
  mkdirSync(shots)
  const first = await pngImage(1280, 720)
  const second = await pngImage(300, 200, '#aa3300')
  const firstPath = writeImage(shots, 'my shot.png', first)
  const secondPath = writeImage(shots, 'other one.png', second)
  const t = await startChat(w)
  // GNOME-style drop: single quotes; then an xterm-style one with escaped spaces.
  t.paste(`'${firstPath}'`)
  await t.waitFor('[image: my shot.png 1280×720]')
  t.paste(secondPath.replace(/ /g, '\\ '))
  await t.waitFor('[image: other one.png 300×200]')
  t.type('what are these?')
  t.keys('Enter')
  await t.waitFor('Two boxes.')
  expect(t.screen()).toContain('attached [image my shot.png 1280×720')
  expect(model.requests.map(imageUrls)).toEqual([[dataUrl(first), dataUrl(second)]])
  const text = model.requests[0]!.messages.at(-1)!
  expect(JSON.stringify(text.content)).toContain(
    '[image: my shot.png 1280×720] [image: other one.png 300×200] what are these?',
  )
  // A pasted path to a file that is not an image stays text.
  writeFileSync(join(w.project, 'notes.txt'), 'hello\n')
  t.paste(join(w.project, 'notes.txt'))
  await t.waitFor(`> ${join(w.project, 'notes.txt')}`)
})

it('Ctrl-V pastes the clipboard image through xclip', async () => {
  const model = await startModel([{ text: 'A clipboard box.' }], { strict: true })
  const w = makeWorld(makeDir(), model.baseUrl)
  const png = await pngImage(64, 48)
  const bin = join(makeDir(), 'bin')
  mkdirSync(bin)
  const pngFile = writeImage(bin, 'clip.png', png)
  // A stand-in for xclip: no X server runs in the test machine, so the real tool has no
  // clipboard to read. It answers the two calls dsh makes: the TARGETS list and the PNG.
  writeFileSync(
    join(bin, 'xclip'),
    `#!/bin/sh\ncase "$*" in\n  *TARGETS*) printf 'TARGETS\\nimage/png\\ntext/plain\\n' ;;\n  *"-t image/png"*) cat '${pngFile}' ;;\n  *) exit 1 ;;\nesac\n`,
  )
  chmodSync(join(bin, 'xclip'), 0o755)
  const PATH = `${bin}${delimiter}${pathWithoutClipboardTools(process.env.PATH ?? '')}`
  const t = await startChat({ ...w, env: { ...w.env, PATH, WAYLAND_DISPLAY: undefined } })
  t.keys('C-v')
  await t.waitFor('[image: clipboard.png 64×48]')
  t.type('and this?')
  t.keys('Enter')
  await t.waitFor('A clipboard box.')
  expect(model.requests.map(imageUrls)).toEqual([[dataUrl(png)]])
})

it('Ctrl-V with no clipboard tool names the tools to install; nothing is sent', async () => {
  const model = await startModel([], { strict: true })
  const w = makeWorld(makeDir(), model.baseUrl)
  const PATH = pathWithoutClipboardTools(process.env.PATH ?? '')
  const t = await startChat({ ...w, env: { ...w.env, PATH } })
  t.keys('C-v')
  await t.waitFor(
    'no clipboard tool found to paste an image: install wl-clipboard (wl-paste) on Wayland or xclip on X11',
  )
  expect(model.requests).toHaveLength(0)
})

it('a pasted image with a model that does not take images is one line before any request', async () => {
  const model = await startModel([], { strict: true })
  const w = makeWorld(makeDir(), model.baseUrl)
  const path = writeImage(w.project, 'shot.png', await pngImage(100, 80))
  const t = await startChat(w, ['--model', 'deepseek-v4-pro'])
  t.paste(path)
  await t.waitFor('[image: shot.png 100×80]')
  t.keys('Enter')
  await t.waitFor('model deepseek-v4-pro does not take images (one is attached); use --model deepseek-flash')
  expect(model.requests).toHaveLength(0)
})
