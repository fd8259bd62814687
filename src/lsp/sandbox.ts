// Language servers under the sandbox: when `sandbox` is on, each server runs in bubblewrap,
// read-only (it reads the workspace, writes only its private /tmp) and with no network.

import { bwrapArgs, type SessionStoreFiles } from '../shell/index.js'

export interface LspSandbox {
  readonly bwrapPath: string
  /** The harness home and session store: hidden from servers as from commands. */
  readonly home: string
  readonly store?: SessionStoreFiles
}

/** The prefix (`bwrap ...`) that runs a server for `root` in the sandbox. */
export function createSandboxWrapper(sandbox: LspSandbox): (root: string) => string[] {
  return (root) => [
    sandbox.bwrapPath,
    ...bwrapArgs(
      {
        mode: 'read-only',
        network: false,
        home: sandbox.home,
        ...(sandbox.store !== undefined ? { store: sandbox.store } : {}),
      },
      { workdir: root, projectRoot: root, readable: [] },
    ),
  ]
}
