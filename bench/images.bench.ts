// Images: attaching a 12-megapixel photo end to end (read, check, downscale, hash, store
// in a JSONL image folder, base64-encode) against sharp's own resize of the file plus a
// base64 encode; attaching a screenshot within the limits against reading and encoding it
// with fs; and request N of a 50-step session with 10 images against the same session
// whose messages carry text as long as the images' data URLs (the encoding is cached).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { buildModelRequest } from '../src/agent/request.js'
import { MAX_SIDE_PX, prepareImageFile } from '../src/attachments/index.js'
import { clearImageEncodings, rememberImageEncoding } from '../src/llm/image-encoding.js'
import { encodeChatRequest } from '../src/llm/openai/request.js'
import { writeImageFile } from '../src/persistence/jsonl/images.js'
import { Session } from '../src/session/session.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const DEFAULTS = { model: 'deepseek-flash', maxTokens: 131_072 }

export default async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-images-'))
  try {
    return [await photo(dir), await screenshot(dir), requests()]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function photo(dir: string): Promise<BenchRow> {
  const path = join(dir, 'photo.jpg')
  const noise = { type: 'gaussian' as const, mean: 128, sigma: 30 }
  writeFileSync(
    path,
    await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#808080', noise } })
      .jpeg({ quality: 90 })
      .toBuffer(),
  )
  const SAMPLES = 5
  const times = { attach: [] as number[], baseline: [] as number[] }
  for (let sample = 0; sample < SAMPLES; sample++) {
    let started = performance.now()
    const resized = await sharp(readFileSync(path))
      .rotate()
      .resize({ width: MAX_SIDE_PX, height: MAX_SIDE_PX, fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 85 })
      .toBuffer()
    resized.toString('base64')
    times.baseline.push(performance.now() - started)

    clearImageEncodings()
    const folder = join(dir, `s${sample}.images`)
    started = performance.now()
    const image = await prepareImageFile(path, { cwd: dir })
    await writeImageFile(folder, image.ref.sha256, image.data)
    rememberImageEncoding(image.ref, image.data)
    times.attach.push(performance.now() - started)
  }
  const measured = median(times.attach)
  const baseline = median(times.baseline)
  return row(
    `attach a 12-megapixel JPEG (4000×3000 → ${MAX_SIDE_PX}×1536; median of ${SAMPLES})`,
    measured,
    baseline,
    'sharp resize + base64',
    1.3,
  )
}

async function screenshot(dir: string): Promise<BenchRow> {
  const path = join(dir, 'shot.png')
  // A screenshot-like PNG: large flat areas with some texture, a few hundred KB.
  const noise = { type: 'gaussian' as const, mean: 200, sigma: 8 }
  writeFileSync(
    path,
    await sharp({ create: { width: 1280, height: 800, channels: 3, background: '#f0f0f0', noise } })
      .png()
      .toBuffer(),
  )
  await prepareImageFile(path, { cwd: dir }) // sharp loaded once, as in a running dsh
  const SAMPLES = 41
  const times = { attach: [] as number[], baseline: [] as number[] }
  let bytes = 0
  for (let sample = 0; sample < SAMPLES; sample++) {
    let started = performance.now()
    const raw = await readFile(path)
    raw.toString('base64')
    times.baseline.push(performance.now() - started)
    bytes = raw.length

    clearImageEncodings()
    started = performance.now()
    const image = await prepareImageFile(path, { cwd: dir })
    rememberImageEncoding(image.ref, image.data)
    times.attach.push(performance.now() - started)
  }
  return row(
    `attach a 1280×800 PNG within the limits (${Math.round(bytes / 1024)} KB; read, check, hash, encode; median of ${SAMPLES})`,
    median(times.attach),
    median(times.baseline),
    'fs read + base64',
    2,
  )
}

function requests(): BenchRow {
  const STEPS = 50
  const IMAGES = 10
  const SAMPLES = 21
  const data = Buffer.alloc(300 * 1024, 7)
  data.write('\x89PNG\r\n\x1a\n', 0, 'latin1')
  const refs = Array.from({ length: IMAGES }, (_, index) => {
    const ref = {
      sha256: index.toString(16).padStart(64, '0'),
      mediaType: 'image/png' as const,
      name: `shot-${index}.png`,
      width: 1280,
      height: 800,
      bytes: data.length,
    }
    rememberImageEncoding(ref, data)
    return ref
  })
  const urlLength = `data:image/png;base64,${data.toString('base64')}`.length
  const withImages = buildSession(STEPS, (step) =>
    step % 5 === 0 ? { text: `look at shot ${step}`, images: [refs[step / 5 - 1]!] } : undefined,
  )
  // The same requests without images: the text carries as many characters as the data URL.
  const padded = buildSession(STEPS, (step) =>
    step % 5 === 0 ? { text: `look at shot ${step}${'x'.repeat(urlLength)}` } : undefined,
  )
  const signal = new AbortController().signal
  const time = (session: Session) => {
    const samples: number[] = []
    encodeChatRequest(buildModelRequest(session, {}, signal), DEFAULTS)
    for (let sample = 0; sample < SAMPLES; sample++) {
      appendStep(session, STEPS + sample + 1)
      const started = performance.now()
      encodeChatRequest(buildModelRequest(session, {}, signal), DEFAULTS)
      samples.push(performance.now() - started)
    }
    return median(samples)
  }
  const baseline = time(padded)
  const measured = time(withImages)
  return row(
    `request N of a ${STEPS}-step session with ${IMAGES} images (${((IMAGES * urlLength) / 1e6).toFixed(1)} MB of data URLs; median of ${SAMPLES})`,
    measured,
    baseline,
    'same session, text as long as the data URLs',
    1.5,
  )
}

function row(name: string, measured: number, baseline: number, what: string, target: number): BenchRow {
  const ratio = measured / baseline
  return {
    name,
    measured: `${measured.toFixed(2)} ms`,
    baseline: `${baseline.toFixed(2)} ms ${what}`,
    ratio,
    target: `≤ ${target}× ${what}`,
    pass: ratio <= target,
  }
}

function buildSession(
  steps: number,
  prompt: (step: number) => { text: string; images?: unknown[] } | undefined,
): Session {
  const session = new Session({ version: 1, id: 'bench', createdAt: 0, delegationDepth: 0 })
  session.append('turn/start', { turn: 1 })
  session.append('user/message', { text: 'Fix the layout bugs in these screenshots.' })
  session.append('request/config', {
    model: 'deepseek-flash',
    effort: 'high',
    system: 'You are dsh, a coding agent. '.repeat(20),
    tools: [{ name: 'bash', description: 'Runs a command.', parameters: { type: 'object' } }],
  })
  for (let step = 1; step <= steps; step++) {
    appendStep(session, step)
    const extra = prompt(step)
    if (extra) session.append('user/message', extra as { text: string })
  }
  return session
}

function appendStep(session: Session, step: number): void {
  session.append('step/start', { turn: 1, step })
  session.append('assistant/message', {
    message: { content: `Step ${step}.`, reasoning: `Reading file ${step}. `.repeat(4) },
  })
  session.append('tool/call', {
    callId: `call_${step}`,
    name: 'bash',
    arguments: `{"command":"cat f${step}"}`,
  })
  session.append('tool/result', { callId: `call_${step}`, content: `contents of file ${step}\n`.repeat(20) })
  session.append('step/end', { turn: 1, step })
}
