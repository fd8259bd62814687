// `dsh web` as a command: prints its URL with a token, serves the built front end from the
// bundle, stops on SIGTERM; bad flags and a busy port are one-line errors.

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, hasStack, makeWorld, runCli, spawnCli } from '../cli/cli.js'

const tempDir = useTempDirs('dsh-web-cli-')
const startModel = useLoopbackModels()

beforeAll(() => assertBuilt())

describe('dsh web (command)', () => {
  it('prints the URL with a token, serves the page from the bundle, and stops on SIGTERM', async () => {
    const model = await startModel([])
    const world = makeWorld(tempDir(), model.baseUrl)
    const run = spawnCli(['web', '--port', '0'], { env: world.env, cwd: world.project })
    await until(() => run.stdout().includes('#token='), 15_000, 'the URL')
    const url = /(http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+)/.exec(run.stdout())![1]!
    const page = await fetch(new URL('/', url))
    expect(await page.text()).toContain('<script type="module" src="/app.js">')
    const bundle = await fetch(new URL('/app.js', url))
    expect(bundle.headers.get('content-type')).toContain('text/javascript')
    const token = new URL(url).hash.slice('#token='.length)
    const api = await fetch(new URL('/api/sessions', url), { headers: { authorization: `Bearer ${token}` } })
    expect(api.status).toBe(200)
    expect(run.stderr()).not.toContain('warning')
    run.child.kill('SIGTERM')
    const result = await run.done
    expect(result.code).toBe(143)
  })

  it('gives one-line errors for a bad port, a bad host and a port in use', async () => {
    const world = makeWorld(tempDir(), 'http://127.0.0.1:9')
    const bad = await runCli(['web', '--port', 'eighty'], { env: world.env, cwd: world.project })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe('dsh: --port must be a number from 0 to 65535 (got "eighty")\n')
    const host = await runCli(['web', '--host', 'my laptop'], { env: world.env, cwd: world.project })
    expect(host.code).toBe(2)
    expect(host.stderr.trim().split('\n')).toHaveLength(1)
    const busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = busy.address() as AddressInfo
      const used = await runCli(['web', '--port', String(port)], { env: world.env, cwd: world.project })
      expect(used.code).toBe(1)
      expect(used.stderr).toBe(`dsh: port ${port} on 127.0.0.1 is in use\n`)
      expect(hasStack(used.stderr)).toBe(false)
    } finally {
      busy.close()
    }
  })

  it('warns when it listens beyond loopback, which only --host does', async () => {
    const model = await startModel([])
    const world = makeWorld(tempDir(), model.baseUrl)
    const run = spawnCli(['web', '--port', '0', '--host', '0.0.0.0'], {
      env: world.env,
      cwd: world.project,
    })
    await until(() => run.stdout().includes('#token='), 15_000, 'the URL')
    expect(run.stderr()).toContain('warning: listening on 0.0.0.0')
    run.child.kill('SIGTERM')
    await run.done
  })
})
