// In Chromium: an edit that breaks types, run in a web session with the real
// typescript-language-server, shows the new error under the edit's diff.

import { describe, expect } from 'vitest'
import { HAVE_TSLS, lspTestConfig, writeTsProject } from '../../support/lsp.js'
import { itRequires } from '../../support/requires.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { openPage, useBrowser, useWebServers } from './web-fixture.js'

const browser = useBrowser()
const start = useWebServers()
const tempDir = useTempDirs('dsh-web-lsp-')

describe('language-server feedback in dsh web', () => {
  itRequires(HAVE_TSLS, 'typescript-language-server')(
    "shows an edit's new type error under its diff",
    { timeout: 300_000 },
    async () => {
      const folder = tempDir()
      writeTsProject(folder)
      const { server } = await start({
        config: { lsp: lspTestConfig() },
        script: [
          { toolCalls: [{ name: 'read', arguments: { file_path: 'src/math.ts' } }] },
          {
            toolCalls: [
              {
                name: 'edit',
                arguments: {
                  file_path: 'src/math.ts',
                  old_string: 'return a + b',
                  new_string: "return a + 'b'",
                },
              },
            ],
          },
          { text: 'broke it' },
        ],
      })
      const { page, errors } = await openPage(browser(), server.url)
      await page.click('button.new-session')
      await page.fill('.new-session-dialog .folder-input', folder)
      await page.click('.new-session-dialog button.create')
      await page.locator('.session-page .mode.hosted').waitFor()
      await page.fill('textarea.prompt', 'break add')
      await page.press('textarea.prompt', 'Enter')
      await page.locator('.msg.assistant', { hasText: 'broke it' }).waitFor({ timeout: 240_000 })
      const edit = page.locator('.tool[data-tool="edit"]')
      const diagnostics = edit.locator('.lsp-diagnostics')
      expect(await diagnostics.textContent()).toMatch(
        /LSP: 1 new error in src\/math\.ts:\nsrc\/math\.ts:3:3: error: Type 'string' is not assignable to type 'number'\./,
      )
      // Under the diff, apart from it.
      expect(await edit.locator('.diff .d-add .d-text').allTextContents()).toContain("  return a + 'b'")
      const [diff, below] = [await edit.locator('.diff').boundingBox(), await diagnostics.boundingBox()]
      expect(below!.y).toBeGreaterThan(diff!.y)
      expect(errors).toEqual([])
    },
  )
})
