// The strict stand-in's image rules (DeepSeek Vision guide, read 2026-12-05): image_url
// parts only for a vision model, only base64 data URLs of the four formats, at most 600.

import { describe, expect, it } from 'vitest'
import { DeepSeekRules } from '../../src/llm/index.js'
import type { WireChatRequest, WireContentPart } from '../../src/llm/openai/wire-types.js'
import { pngImage } from '../support/images.js'

function request(model: string, parts: WireContentPart[]): WireChatRequest {
  return { model, thinking: { type: 'disabled' }, messages: [{ role: 'user', content: parts }] }
}

describe('strict stand-in image parts', () => {
  it('accepts a PNG data URL for deepseek-flash and refuses it for deepseek-v4-pro', async () => {
    const url = `data:image/png;base64,${(await pngImage(8, 8)).toString('base64')}`
    const parts: WireContentPart[] = [
      { type: 'text', text: 'look' },
      { type: 'image_url', image_url: { url } },
    ]
    const rules = new DeepSeekRules()
    expect(rules.refuse(request('deepseek-flash', parts))).toBeUndefined()
    expect(rules.refuse(request('deepseek-v4-flash-vision-exp', parts))).toBeUndefined()
    expect(rules.refuse(request('deepseek-v4-pro', parts))?.message).toBe(
      'Model deepseek-v4-pro does not support image input',
    )
  })

  it('checks the encoding: data URL, padded base64, image bytes of an accepted format', async () => {
    const rules = new DeepSeekRules()
    const png = (await pngImage(8, 8)).toString('base64')
    const bad = [
      'https://example.com/a.png',
      `data:image/bmp;base64,${png}`,
      `data:image/png;base64,${png.slice(0, -1)}`,
      `data:image/png;base64,${Buffer.from('not an image').toString('base64')}`,
      `data:image/png,${png}`,
    ]
    for (const url of bad) {
      const refusal = rules.refuse(request('deepseek-flash', [{ type: 'image_url', image_url: { url } }]))
      expect(refusal?.status, url).toBe(400)
    }
    const many = Array.from({ length: 601 }, () => ({
      type: 'image_url' as const,
      image_url: { url: `data:image/png;base64,${png}` },
    }))
    expect(rules.refuse(request('deepseek-flash', many))?.message).toBe(
      'Too many images in request: 601 > 600',
    )
  })
})
