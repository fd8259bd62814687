// Error codes of the agent seam.

export const AgentErrorCode = {
  AlreadyLive: 'AGENT_ALREADY_LIVE',
  IdMismatch: 'AGENT_ID_MISMATCH',
  BadOptions: 'AGENT_BAD_OPTIONS',
  NotFound: 'AGENT_NOT_FOUND',
  Aborted: 'AGENT_ABORTED',
  NoModel: 'AGENT_NO_MODEL',
  Disposed: 'AGENT_DISPOSED',
} as const
