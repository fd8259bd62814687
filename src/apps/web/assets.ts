// The built front end (dist/web: index.html, app.js, app.css), found next to the build
// and served from memory. Only these files are ever served: no path reaches the disk.

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DshError } from '../../core/errors.js'
import { WebErrorCode } from './errors.js'

export interface Asset {
  body: Buffer
  type: string
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
}

/** Where the build puts the front end, seen from this module's place in dist/bundle, dist/src or src. */
const CANDIDATES = ['../web/', '../../../web/', '../../../dist/web/']

export function findAssetsDir(): string {
  for (const relative of CANDIDATES) {
    const dir = fileURLToPath(new URL(relative, import.meta.url))
    if (existsSync(join(dir, 'index.html'))) return dir
  }
  throw new DshError('the web front end is not built (run `npm run build`)', WebErrorCode.NoFrontEnd, {
    userFacing: true,
  })
}

/** Reads every built file into memory, by its URL path (`/app.js`). */
export function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>()
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)]
    if (type === undefined) continue
    assets.set(`/${name}`, { body: readFileSync(join(dir, name)), type })
  }
  return assets
}
