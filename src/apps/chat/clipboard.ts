// Reads an image from the system clipboard for Ctrl-V in the chat, through the clipboard
// tool the desktop provides: wl-paste (wl-clipboard) on Wayland, xclip on X11. A terminal
// only ever pastes text, so an image has to come from such a tool.

import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import type { Readable } from 'node:stream'
import { AttachmentErrorCode, MAX_SOURCE_BYTES } from '../../attachments/index.js'
import { DshError } from '../../core/errors.js'
import { withoutPtyMasters } from '../../shell/index.js'

/** Preferred first: PNG is what screenshot tools put on the clipboard. */
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif']

export const NO_CLIPBOARD_TOOL =
  'no clipboard tool found to paste an image: install wl-clipboard (wl-paste) on Wayland or xclip on X11'

interface Tool {
  name: 'wl-paste' | 'xclip'
  path: string
}

/** The image bytes on the clipboard. Rejects with one line: no tool, no image, the tool failed. */
export async function readClipboardImage(env: NodeJS.ProcessEnv): Promise<Buffer> {
  const tool = findTool(env)
  if (tool === undefined) throw clipboardError(NO_CLIPBOARD_TOOL)
  const listing = await run(tool, tool.name === 'wl-paste' ? ['--list-types'] : targets(), env)
  const offered = new Set(listing.toString('utf8').split(/\s+/).filter(Boolean))
  const type = IMAGE_TYPES.find((candidate) => offered.has(candidate))
  if (type === undefined) throw clipboardError('the clipboard holds no image (paste text with the terminal)')
  const args = tool.name === 'wl-paste' ? ['--no-newline', '--type', type] : selection('-t', type)
  const data = await run(tool, args, env)
  if (data.length === 0) throw clipboardError(`${tool.name} returned an empty ${type} image`)
  return data
}

/** wl-paste where Wayland runs, else xclip; whichever is installed when only one is. */
function findTool(env: NodeJS.ProcessEnv): Tool | undefined {
  const order: Tool['name'][] = env.WAYLAND_DISPLAY ? ['wl-paste', 'xclip'] : ['xclip', 'wl-paste']
  for (const name of order) {
    const path = onPath(name, env.PATH ?? '')
    if (path !== undefined) return { name, path }
  }
  return undefined
}

function onPath(name: string, pathVariable: string): string | undefined {
  for (const dir of pathVariable.split(delimiter)) {
    if (dir === '') continue
    const candidate = join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

const selection = (...args: string[]) => ['-selection', 'clipboard', '-o', ...args]
const targets = () => selection('-t', 'TARGETS')

/** How long a clipboard tool may take. */
const TOOL_TIMEOUT_MS = 10_000

/**
 * Runs the tool and answers its stdout. Spawned, not execFile'd, so the child gets /dev/null
 * on the terminals' pty masters (execFile takes no stdio array): wl-paste may outlive the call.
 */
function run(tool: Tool, args: string[], env: NodeJS.ProcessEnv): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool.path, args, {
      env,
      stdio: withoutPtyMasters(['ignore', 'pipe', 'pipe']),
    }) as ChildProcessByStdio<null, Readable, Readable> // stdout and stderr are pipes
    const out: Buffer[] = []
    let size = 0
    let stderr = ''
    let failure: string | undefined
    const fail = (why: string) => {
      failure ??= why
      child.kill('SIGKILL')
    }
    const timer = setTimeout(() => fail(`timed out after ${TOOL_TIMEOUT_MS / 1000} s`), TOOL_TIMEOUT_MS)
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_SOURCE_BYTES) fail(`its output passed ${MAX_SOURCE_BYTES} bytes`)
      else out.push(chunk)
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8')
    })
    child.on('error', (error) => fail(error.message))
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const why =
        failure ??
        (code === 0 ? undefined : stderr.trim().split('\n')[0] || `exited with ${signal ?? `code ${code}`}`)
      if (why !== undefined) reject(clipboardError(`${tool.name} failed: ${why}`))
      else resolve(Buffer.concat(out))
    })
  })
}

function clipboardError(message: string): DshError {
  return new DshError(message, AttachmentErrorCode.Unreadable, { userFacing: true })
}
