// UserPromptSubmit hooks see a prompt's images as references in its text, as Claude Code
// marks pasted images (`[Image #1]`); an `@shot.png` mention already names its image.

import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { prepareImageFile, promptWithImageRefs } from '../../src/attachments/index.js'
import { oneHook, readRecords, useRigs, writeRecorder } from '../hooks/rig.js'
import { pngImage, writeImage } from '../support/images.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-hook-images-')
const rig = useRigs()

describe('image references for hooks', () => {
  it('marks images the text does not mention', () => {
    const ref = {
      sha256: 'a'.repeat(64),
      mediaType: 'image/png' as const,
      name: 'shot.png',
      width: 1,
      height: 1,
      bytes: 1,
    }
    expect(promptWithImageRefs('fix it', [ref, { ...ref, name: 'b.png' }])).toBe(
      'fix it [Image #1] [Image #2]',
    )
    expect(promptWithImageRefs('fix @shot.png', [ref])).toBe('fix @shot.png')
    expect(promptWithImageRefs('fix it', undefined)).toBe('fix it')
  })

  it('a UserPromptSubmit hook gets the prompt with [Image #1] for an attached image', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const r = await rig({
      dir,
      dialect: 'claude-code',
      script: [{ text: 'seen' }],
      hooks: oneHook('UserPromptSubmit', recorder),
    })
    writeImage(r.cwd, 'shot.png', await pngImage(20, 20))
    const image = await prepareImageFile('shot.png', { cwd: r.cwd })
    const agent = await r.agents.create({ sessionId: 'hook-img', meta: { cwd: r.cwd } })
    expect((await agent.prompt('what is wrong here?', { images: [image] })).reason).toBe('completed')
    expect(readRecords(out).map((run) => run.payload.prompt)).toEqual(['what is wrong here? [Image #1]'])
  })
})
