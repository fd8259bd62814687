// The sessions page in Chromium: removing a session (a confirm step, its sub-agent sessions
// and spill files go with it, the rows disappear) and a session another process writes
// refused with a visible message naming the writer.

import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Request } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { SPILL_FOLDER, spillDirFor } from '../../../src/spill/index.js'
import { ProjectTrustStore } from '../../../src/trust/index.js'
import { startTestHarness } from '../../support/harness.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { openPage, useBrowser, useWebServers } from './web-fixture.js'

const browser = useBrowser()
const start = useWebServers()
const tempDir = useTempDirs('dsh-web-trust-')

/** A project folder whose own `.claude/settings.json` brings a UserPromptSubmit hook that leaves a mark. */
function projectWithHook(): { folder: string; mark: string } {
  const folder = tempDir()
  const mark = join(folder, 'hook-ran.txt')
  mkdirSync(join(folder, '.git'))
  mkdirSync(join(folder, '.claude'))
  writeFileSync(
    join(folder, '.claude', 'settings.json'),
    JSON.stringify({
      hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `echo ran >> '${mark}'` }] }] },
    }),
  )
  return { folder, mark }
}

describe('dsh web sessions page', () => {
  it('asks the project-trust question in the browser once per folder: yes runs and remembers, no runs nothing', async () => {
    const { server, test } = await start({
      script: [{ text: 'trusted answer' }, { text: 'untrusted answer' }, { text: 'again untrusted' }],
    })
    const yes = projectWithHook()
    const no = projectWithHook()
    const { page, dialogs, errors } = await openPage(browser(), server.url)
    const trust = page.locator('.trust-dialog')
    const newSession = async (folder: string) => {
      await page.goto(`${server.origin}/#/`)
      await page.click('button.new-session')
      await page.fill('.new-session-dialog .folder-input', folder)
      await page.click('.new-session-dialog button.create')
    }
    const chat = async (prompt: string, answer: string) => {
      await page.locator('.session-page .mode.hosted').waitFor()
      await page.fill('textarea.prompt', prompt)
      await page.press('textarea.prompt', 'Enter')
      await page.locator('.markdown', { hasText: answer }).waitFor()
    }

    // Yes: the question names the folder and what it brings; the hook runs; the answer is remembered.
    await newSession(yes.folder)
    await trust.waitFor()
    // The session waits for the answer; the dialog cannot start a second one meanwhile.
    expect(await page.locator('.new-session-dialog button.create').isDisabled()).toBe(true)
    expect(await trust.locator('.trust-folder').textContent()).toBe(yes.folder)
    expect(await trust.locator('.trust-brings').textContent()).toContain('Claude Code hook')
    await trust.locator('button.trust-yes').click()
    await chat('hello trusted', 'trusted answer')
    await expect.poll(() => existsSync(yes.mark)).toBe(true)
    expect(new ProjectTrustStore(test.home).isTrusted(yes.folder)).toBe(true)
    expect(await trust.count()).toBe(0)

    // No: the session still works, the project's hook does not run, nothing is remembered.
    await newSession(no.folder)
    await trust.waitFor()
    expect(await trust.locator('.trust-folder').textContent()).toBe(no.folder)
    await trust.locator('button.trust-no').click()
    await chat('hello untrusted', 'untrusted answer')
    expect(existsSync(no.mark)).toBe(false)
    expect(new ProjectTrustStore(test.home).isTrusted(no.folder)).toBe(false)

    // Once per folder and process: a second session there is not asked again and stays untrusted.
    await newSession(no.folder)
    await chat('hello again', 'again untrusted')
    expect(await trust.count()).toBe(0)
    expect(existsSync(no.mark)).toBe(false)

    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
    await page.context().close()
  })

  // Seen under load: the default folder arrived between Playwright's select-all and its typing,
  // and the session was asked for in "<server cwd><typed folder>".
  it('shows the new-session fields only with their defaults, so nothing typed is replaced or appended to', async () => {
    const { server } = await start({ script: [{ text: 'the only answer' }] })
    const folder = tempDir()
    const { page, dialogs, errors } = await openPage(browser(), server.url)
    const created = () =>
      page.waitForRequest(
        (request) => request.method() === 'POST' && new URL(request.url()).pathname === '/api/sessions',
      )

    // While the choices load there is nothing to type into and nothing to start.
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    await page.route('**/api/models', async (route) => {
      await held
      await route.continue()
    })
    await page.click('button.new-session')
    await page.locator('.new-session-dialog .loading').waitFor()
    expect(await page.locator('.new-session-dialog .folder-input').count()).toBe(0)
    expect(await page.locator('.new-session-dialog button.create').isDisabled()).toBe(true)
    release()
    const input = page.locator('.new-session-dialog .folder-input')
    await input.waitFor()
    expect(await input.inputValue()).toBe(process.cwd())
    await page.fill('.new-session-dialog .folder-input', folder)
    const first = created()
    await page.click('.new-session-dialog button.create')
    expect((await first).postDataJSON()).toMatchObject({ cwd: folder })
    await page.locator('.session-page .mode.hosted').waitFor()

    // The choices cannot be loaded: the dialog says so, and a session still starts in the folder typed.
    await page.unroute('**/api/models')
    await page.route('**/api/models', (route) => route.abort())
    await page.reload()
    await page.goto(`${server.origin}/#/`)
    await page.click('button.new-session')
    await page
      .locator('.new-session-dialog .error', { hasText: 'could not load the model choices' })
      .waitFor()
    await page.fill('.new-session-dialog .folder-input', folder)
    const second = created()
    await page.click('.new-session-dialog button.create')
    expect((await second).postDataJSON()).toEqual({ cwd: folder })
    await page.locator('.session-page .mode.hosted').waitFor()
    // The chat box says so too (it asked for them as well), and a prompt still goes out.
    await page.locator('.notice-bar', { hasText: 'could not load the model choices' }).waitFor()
    await page.fill('textarea.prompt', 'hello')
    await page.press('textarea.prompt', 'Enter')
    await page.locator('.markdown', { hasText: 'the only answer' }).waitFor()

    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
    await page.context().close()
  })

  // Seen under load: a test moved to a session's hash before the router listened, and the
  // page stayed on the list.
  it('follows a hash that changed before the router was listening', async () => {
    const { server, test } = await start({ script: [{ text: 'stored answer' }] })
    const agent = await test.harness.agents.create({ sessionId: 'early-hash', meta: { cwd: tempDir() } })
    await agent.prompt('a question')
    await test.harness.agents.dispose(agent.id)

    const context = await browser().newContext()
    const page = await context.newPage()
    // The hash changes as soon as the first render is in the DOM: its event comes before any effect runs.
    await page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (document.getElementById('app')?.firstChild) {
          observer.disconnect()
          location.hash = '#/session/early-hash'
        }
      }).observe(document, { childList: true, subtree: true })
    })
    await page.goto(server.url)
    await page.locator('.markdown', { hasText: 'stored answer' }).waitFor()
    await context.close()
  })

  it('asks when a stored session in an untrusted project is resumed from its page', async () => {
    const { server, test } = await start({ script: [{ text: 'after resume' }] })
    const project = projectWithHook()
    // Written earlier by a headless run with --trust-project (trusted without being remembered), then closed.
    const earlier = await startTestHarness({
      home: test.home,
      trust: { frontEnd: 'headless', granted: true },
      script: [{ text: 'from the earlier run' }],
    })
    try {
      const writer = await earlier.harness.agents.create({
        sessionId: 'stored-here',
        meta: { cwd: project.folder },
      })
      await writer.prompt('earlier prompt')
    } finally {
      await earlier.close()
    }
    expect(existsSync(project.mark)).toBe(true)
    rmSync(project.mark)

    const { page, dialogs, errors } = await openPage(browser(), server.url)
    await page.goto(`${server.origin}/#/session/stored-here`)
    await page.locator('.mode.readonly').waitFor()
    await page.click('button.resume')
    const trust = page.locator('.trust-dialog')
    await trust.waitFor()
    expect(await trust.locator('.trust-folder').textContent()).toBe(project.folder)
    await trust.locator('button.trust-yes').click()
    await page.locator('.mode.hosted').waitFor()
    expect(new ProjectTrustStore(test.home).isTrusted(project.folder)).toBe(true)
    await page.fill('textarea.prompt', 'again')
    await page.press('textarea.prompt', 'Enter')
    await page.locator('.markdown', { hasText: 'after resume' }).waitFor()
    await expect.poll(() => existsSync(project.mark)).toBe(true)
    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('removes a session with its sub-agent sessions after a confirm, and refuses one written elsewhere', async () => {
    const { server, test } = await start({
      script: [{ text: 'kept answer' }, { text: 'parent answer' }, { text: 'child answer' }],
    })
    const persistence = test.harness.ctx.get('sessionPersistence')!
    const made = async (sessionId: string, prompt: string, meta: Record<string, unknown> = {}) => {
      const agent = await test.harness.agents.create({ sessionId, meta: { cwd: test.home, ...meta } })
      await agent.prompt(prompt)
      await test.harness.agents.dispose(agent.id)
    }
    await made('keep-me', 'the kept question')
    await made('parent-session', 'the parent question')
    await made('child-session', 'the child question', {
      parentSession: 'parent-session',
      origin: 'subagent',
      delegationDepth: 1,
    })
    const spill = spillDirFor(join(test.home, SPILL_FOLDER), 'parent-session')
    mkdirSync(spill, { recursive: true })
    writeFileSync(join(spill, 'bash-1.out'), 'long output\n')

    // Another process writes a session on the same root and keeps it open.
    const other = await startTestHarness({ home: test.home, script: [{ text: 'elsewhere answer' }] })
    try {
      const writer = await other.harness.agents.create({
        sessionId: 'written-elsewhere',
        meta: { cwd: test.home },
      })
      await writer.prompt('the elsewhere question')

      const { page, dialogs, errors } = await openPage(browser(), server.url)
      const row = (id: string) => page.locator(`tr.session-row[data-id="${id}"]`)
      for (const id of ['keep-me', 'parent-session', 'child-session', 'written-elsewhere'])
        await row(id).waitFor()

      // The first click only asks; cancel keeps everything.
      await row('parent-session').locator('button.remove').click()
      await row('parent-session').locator('.confirm-remove', { hasText: 'sub-agent sessions' }).waitFor()
      await row('parent-session').locator('button.remove-no').click()
      await row('parent-session').locator('button.remove').waitFor()
      expect(await persistence.exists('parent-session')).toBe(true)

      // Confirmed: the session, its sub-agent session and its spill files go; the rows disappear.
      await row('parent-session').locator('button.remove').click()
      await row('parent-session').locator('button.remove-yes').click()
      await expect.poll(() => row('parent-session').count()).toBe(0)
      await expect.poll(() => row('child-session').count()).toBe(0)
      expect(await persistence.exists('parent-session')).toBe(false)
      expect(await persistence.exists('child-session')).toBe(false)
      expect(existsSync(spill)).toBe(false)
      expect(await row('keep-me').count()).toBe(1)

      // A session another process is writing is refused, naming the writer; nothing goes.
      await row('written-elsewhere').locator('button.remove').click()
      // The list reloads after a remove (a GET of the list); the refusal must outlive that reload.
      // Only a GET asked after the DELETE's answer is that reload (the browser reports them in order).
      let removeAnswered = false
      const reloads = new Set<Request>()
      page.on('response', (response) => {
        if (response.request().method() === 'DELETE') removeAnswered = true
      })
      page.on('request', (request) => {
        if (removeAnswered && request.method() === 'GET' && /\/api\/sessions\?/.test(request.url()))
          reloads.add(request)
      })
      const reloaded = page.waitForResponse((response) => reloads.has(response.request()))
      await row('written-elsewhere').locator('button.remove-yes').click()
      const refusal = page.locator('.notice-bar', {
        hasText: /"written-elsewhere" is being written by .*not removed/,
      })
      await refusal.waitFor()
      await reloaded
      // Two frames: the reloaded list has rendered.
      await page.evaluate(
        () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
      )
      expect(await refusal.isVisible()).toBe(true)
      expect(await row('written-elsewhere').count()).toBe(1)
      expect(await persistence.exists('written-elsewhere')).toBe(true)
      expect(writer.session.events.at(-1)?.type).toBe('turn/end')

      expect(dialogs).toEqual([])
      expect(errors).toEqual([])
      await page.context().close()
    } finally {
      await other.close()
    }

    // The route is a mutation: with the token only in the query nothing is removed.
    const bare = await fetch(`${server.origin}/api/sessions/keep-me?token=${server.secrets.token}`, {
      method: 'DELETE',
    })
    expect(bare.status).toBe(403)
    expect(await persistence.exists('keep-me')).toBe(true)

    // A session this server hosts (holding its writer lease) is released, then removed.
    await server.host.host('keep-me')
    expect(server.host.state('keep-me').hosted).toBe(true)
    const removed = await fetch(`${server.origin}/api/sessions/keep-me`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${server.secrets.token}` },
    })
    expect(await removed.json()).toEqual({ removed: ['keep-me'], refused: [] })
    expect(await persistence.exists('keep-me')).toBe(false)
    expect(server.host.state('keep-me').hosted).toBe(false)
  })
})
