// The sessions page in Chromium: removing a session (a confirm step, its sub-agent sessions
// and spill files go with it, the rows disappear) and a session another process writes
// refused with a visible message naming the writer.

import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
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
      await row('written-elsewhere').locator('button.remove-yes').click()
      const refusal = page.locator('.notice-bar', {
        hasText: /"written-elsewhere" is being written by .*not removed/,
      })
      await refusal.waitFor()
      // The list reloads after a remove; the refusal must outlive that reload.
      await page.waitForTimeout(1000)
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

    // The route is a mutation: without the CSRF header nothing is removed.
    const bare = await fetch(`${server.origin}/api/sessions/keep-me`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${server.secrets.token}` },
    })
    expect(bare.status).toBe(403)
    expect(await persistence.exists('keep-me')).toBe(true)

    // A session this server hosts (holding its writer lease) is released, then removed.
    await server.host.host('keep-me')
    expect(server.host.state('keep-me').hosted).toBe(true)
    const removed = await fetch(`${server.origin}/api/sessions/keep-me`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${server.secrets.token}`, 'x-dsh-csrf': server.secrets.csrf },
    })
    expect(await removed.json()).toEqual({ removed: ['keep-me'], refused: [] })
    expect(await persistence.exists('keep-me')).toBe(false)
    expect(server.host.state('keep-me').hosted).toBe(false)
  })
})
