// A package registry on 127.0.0.1 that serves what is already installed in node_modules,
// so `npm install` of dsh's packed tarball runs with no network at all: for every package
// of package-lock.json a packument with the locked version(s), and tarballs made from the
// installed folders on first request (their native builds included, which is why the
// install runs with --ignore-scripts). Packages of other platforms (optional, not on
// disk) get a packument and no tarball: npm skips them by their `os`/`cpu` before fetching.

import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { basename, dirname, join } from 'node:path'

interface Locked {
  /** Folder in node_modules, relative to the root (`node_modules/a/node_modules/b`). */
  folder: string
  name: string
  version: string
  manifest: Record<string, unknown>
  onDisk: boolean
}

export interface LocalRegistry {
  url: string
  /** Package names npm asked for that the lock does not know. */
  unknown: string[]
  close(): Promise<void>
}

export async function startLocalRegistry(root: string, tarballDir: string): Promise<LocalRegistry> {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, Record<string, unknown>>
  }
  const byName = new Map<string, Map<string, Locked>>()
  for (const [folder, entry] of Object.entries(lock.packages)) {
    if (folder === '' || entry.dev === true || entry.link === true) continue
    const name = (entry.name as string | undefined) ?? folder.slice(folder.lastIndexOf('node_modules/') + 13)
    const version = entry.version as string
    const onDisk = existsSync(join(root, folder, 'package.json'))
    const manifest = onDisk
      ? (JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) as Record<string, unknown>)
      : { ...entry, name }
    const versions = byName.get(name) ?? new Map<string, Locked>()
    if (!versions.has(version) || onDisk) versions.set(version, { folder, name, version, manifest, onDisk })
    byName.set(name, versions)
  }
  mkdirSync(tarballDir, { recursive: true })
  const packed = new Map<string, string>()
  const pack = (locked: Locked) => {
    const key = `${locked.name}@${locked.version}`
    const done = packed.get(key)
    if (done) return done
    const path = join(tarballDir, `${key.replace(/[@/]/g, '_')}.tgz`)
    const folder = join(root, locked.folder)
    const base = basename(folder)
    // The installed folder as `package/…`, without its own nested node_modules.
    const result = spawnSync(
      'tar',
      [
        '-czf',
        path,
        '-C',
        dirname(folder),
        `--exclude=${base}/node_modules`,
        `--transform=s,^${base},package,`,
        base,
      ],
      { encoding: 'utf8' },
    )
    if (result.status !== 0) throw new Error(`tar of ${folder} failed: ${result.stderr}`)
    packed.set(key, path)
    return path
  }
  const unknown: string[] = []
  let base = ''
  const server: Server = createServer((req, res) => {
    try {
      const path = decodeURIComponent((req.url ?? '/').split('?')[0]!.slice(1))
      const tarballMatch = /^-\/(.+)\/-\/(.+)\.tgz$/.exec(path)
      if (tarballMatch) {
        const locked = byName.get(tarballMatch[1]!)?.get(tarballMatch[2]!)
        if (!locked?.onDisk) return void res.writeHead(404).end()
        res.writeHead(200, { 'content-type': 'application/octet-stream' })
        return void res.end(readFileSync(pack(locked)))
      }
      const versions = byName.get(path)
      if (!versions) {
        unknown.push(path)
        return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}')
      }
      const packument = {
        name: path,
        'dist-tags': { latest: [...versions.keys()].at(-1) },
        versions: Object.fromEntries(
          [...versions.values()].map((locked) => {
            // No integrity: npm takes the tarball as served (packing every version up front
            // for its hash would tar hundreds of MB nobody asked for).
            const tarball = `${base}/-/${locked.name}/-/${locked.version}.tgz`
            return [
              locked.version,
              { ...locked.manifest, name: locked.name, version: locked.version, dist: { tarball } },
            ]
          }),
        ),
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument))
    } catch (error) {
      res.writeHead(500).end(String(error))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: `${base}/`,
    unknown,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
