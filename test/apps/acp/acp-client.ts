// An ACP client (the SDK's ClientApp) connected in-process to `runAcpServer` over
// PassThrough streams: records session updates and answers permission requests.

import { PassThrough } from 'node:stream'
import {
  type ClientContext,
  client as clientApp,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk'
import { runAcpServer } from '../../../src/apps/acp/index.js'
import { nodeNdJsonStream } from '../../../src/apps/acp/streams.js'
import type { Harness } from '../../../src/harness/index.js'

export interface AcpTestClient {
  agent: ClientContext
  /** Every `session/update` received, in order. */
  updates: SessionNotification[]
  permissionRequests: RequestPermissionRequest[]
  /** Resolves when the server returns. */
  done: Promise<void>
  /** Ends the client's output (the editor went away) and waits for the server. */
  close(): Promise<void>
}

export type PermissionAnswer = (
  request: RequestPermissionRequest,
) => RequestPermissionResponse | Promise<RequestPermissionResponse>

export async function startAcpClient(
  harness: Harness,
  answer: PermissionAnswer = () => ({ outcome: { outcome: 'cancelled' } }),
  server: { maxMessageBytes?: number } = {},
): Promise<AcpTestClient> {
  const toServer = new PassThrough()
  const toClient = new PassThrough()
  const done = runAcpServer({ harness, input: toServer, output: toClient, ...server })
  const updates: SessionNotification[] = []
  const permissionRequests: RequestPermissionRequest[] = []
  const app = clientApp({ name: 'dsh-test-client' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params)
    })
    .onRequest('session/request_permission', ({ params }) => {
      permissionRequests.push(params)
      return answer(params)
    })
  const connection = app.connect(nodeNdJsonStream(toClient, toServer))
  return {
    agent: connection.agent,
    updates,
    permissionRequests,
    done,
    async close() {
      toServer.end()
      await done
      connection.close()
    },
  }
}
