// Paths of the MCP servers tests start: the MCP project's reference servers (pinned dev
// dependencies, run with `node` from node_modules) and dsh's own fixture server.

import { fileURLToPath } from 'node:url'

const root = (relative: string) => fileURLToPath(new URL(`../../${relative}`, import.meta.url))

/** The reference "everything" server; its first argument picks the transport (`stdio`, `streamableHttp`, `sse`). */
export const EVERYTHING_SERVER = root('node_modules/@modelcontextprotocol/server-everything/dist/index.js')
/** The reference filesystem server; its arguments are the allowed folders. */
export const FILESYSTEM_SERVER = root('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')
/** A small server built on the SDK with tools that crash, add tools, and report progress. */
export const FIXTURE_SERVER = root('test/mcp/fixtures/fixture-server.mjs')

/** Start-up of a Node server takes a few seconds on a busy 2-core machine. */
export const SERVER_TEST_TIMEOUT_MS = 60_000
