// `dsh run --image` and `@` mentions through the built CLI against the strict stand-in:
// both reach the model as the same image_url part; `sessions show` prints the image line;
// each bad input is one line, exit 2, and no session is written.

import { existsSync, mkdirSync, readdirSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { pngImage, writeImage } from '../../support/images.js'
import type { ReceivedRequest } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, hasStack, runCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-images-')
const startWorld = useModelWorlds(makeDir)
beforeAll(assertBuilt)

function imageUrls(request: ReceivedRequest): string[] {
  return request.messages.flatMap((message) =>
    message.role === 'user' && typeof message.content !== 'string'
      ? message.content.flatMap((part) => (part.type === 'image_url' ? [part.image_url.url] : []))
      : [],
  )
}

describe('dsh run with images', () => {
  it('--image and an @ mention send the same part; sessions show prints the image line', async () => {
    const w = await startWorld([{ text: 'a box' }, { text: 'the same box' }], { strict: true })
    const data = await pngImage(1280, 800)
    writeImage(w.project, 'shot.png', data)
    const flag = await runCli(['run', '--session-id', 'flag', '--image', 'shot.png', 'what is this?'], {
      env: w.env,
      cwd: w.project,
    })
    expect(flag.stderr).not.toMatch(/error/i)
    expect(flag.code).toBe(0)
    const mention = await runCli(['run', '--session-id', 'mention', 'what is in @shot.png?'], {
      env: w.env,
      cwd: w.project,
    })
    expect(mention.code).toBe(0)
    const url = `data:image/png;base64,${data.toString('base64')}`
    expect(w.model.requests.map(imageUrls)).toEqual([[url], [url]])
    const shown = await runCli(['sessions', 'show', 'mention'], { env: w.env, cwd: w.project })
    expect(shown.stdout).toContain(`[image shot.png 1280×800 ${Math.round(data.length / 1024)} KB]`)
    // Export writes Claude Code's image block after the prompt text.
    const exported = await runCli(['sessions', 'export', 'flag', '--format', 'claude-code'], {
      env: w.env,
      cwd: w.project,
    })
    const user = exported.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; message: { content: unknown } })
      .find((line) => line.type === 'user')!
    expect(user.message.content).toEqual([
      { type: 'text', text: 'what is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: data.toString('base64') } },
    ])
  })

  it('refuses each bad input in one line (exit 2) before any request or session file', async () => {
    const w = await startWorld([], { strict: true })
    mkdirSync(join(w.project, 'dir.png'))
    writeFileSync(join(w.project, 'notes.png'), 'text\n')
    const png = await pngImage(50, 50)
    writeImage(w.project, 'corrupt.png', png)
    truncateSync(join(w.project, 'corrupt.png'), png.length - 30)
    writeImage(w.project, 'ok.png', png)
    const outside = makeDir()
    writeImage(outside, 'far.png', png)
    const cases: [string[], RegExp][] = [
      [['--image', 'missing.png', 'x'], /^dsh: image missing\.png: no such file\n$/],
      [['--image', 'dir.png', 'x'], /^dsh: image dir\.png: is a folder, not a file\n$/],
      [['see @notes.png'], /^dsh: image notes\.png: not an image dsh can send/],
      [['--image', 'corrupt.png', 'x'], /^dsh: image corrupt\.png: the PNG/],
      [[`see @${join(outside, 'far.png')}`], /^dsh: image .*far\.png: outside the project/],
      [
        ['--image', 'https://example.com/a.png', 'x'],
        /^dsh: image https:\/\/example\.com\/a\.png: dsh does not fetch images/,
      ],
      [
        ['--model', 'deepseek-v4-pro', '--image', 'ok.png', 'x'],
        /^dsh: model deepseek-v4-pro does not take images \(one is attached\); use --model deepseek-flash\n$/,
      ],
    ]
    for (const [args, message] of cases) {
      const result = await runCli(['run', ...args], { env: w.env, cwd: w.project })
      expect(result.stderr, args.join(' ')).toMatch(message)
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1)
      expect(hasStack(result.stderr)).toBe(false)
      expect(result.code, args.join(' ')).toBe(2)
    }
    expect(w.model.requests).toEqual([])
    const sessions = join(w.home, 'sessions')
    expect(existsSync(sessions) ? readdirSync(sessions, { recursive: true }) : []).toEqual([])
  })
})
