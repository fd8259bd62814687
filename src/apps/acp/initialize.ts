// The answer to ACP's `initialize`: what this agent can do (load, image prompts, MCP transports).

import { type InitializeResponse, PROTOCOL_VERSION } from '@agentclientprotocol/sdk'
import { packageVersion } from '../../core/version.js'
import { ACP_MCP_CAPABILITIES } from '../../mcp/index.js'

export function initializeResponse(): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { ...ACP_MCP_CAPABILITIES },
    },
    agentInfo: { name: 'dsh', title: 'dsh', version: packageVersion() },
    authMethods: [],
  }
}
