// Debian's Chromium driven by playwright-core, for the web UI's end-to-end tests and
// benchmark: headless, no sandbox (containers run as root), and nothing that reaches the
// network on its own (these machines have none).

import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

export const CHROMIUM_PATH = process.env.DSH_CHROMIUM ?? '/usr/bin/chromium'

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH)
}

/** Flags that keep a headless Chromium off the network and quiet. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-sync',
  '--disable-extensions',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--disable-breakpad',
  '--no-first-run',
  '--no-default-browser-check',
  '--metrics-recording-only',
  '--no-pings',
  '--password-store=basic',
  '--use-mock-keychain',
  '--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication',
]

/** Launches Chromium; fails (never skips) when it is missing: `.ci/run` installs it. */
export async function launchChromium(): Promise<Browser> {
  if (!chromiumAvailable()) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install the chromium package (see .ci/run)`)
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS })
}
