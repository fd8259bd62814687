// Public surface of `dsh web`: a local web UI that hosts agents through the composition
// root — a sessions page, transcripts, and live chat in the browser (see README).

export { TOKEN_COOKIE, TOKEN_PARAM } from './auth.js'
export { type WebOptions, webCommand } from './command.js'
export { HttpError, WebErrorCode } from './errors.js'
export { WEB_AGENT_LABEL } from './hosting.js'
export { startWebServer, type WebServer, type WebServerOptions } from './server.js'
export type {
  LiveMessage,
  ModelsResponse,
  PendingApproval,
  RemoveResponse,
  SessionResponse,
  SessionRow,
  SessionState,
  SessionsResponse,
  TrustQuestion,
} from './types.js'
