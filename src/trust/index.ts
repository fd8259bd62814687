// Project trust: which folders may bring their own hooks, MCP servers, allow rules,
// skills and commands. Deny rules from a project apply whether it is trusted or not.

export {
  type DecideProjectTrustOptions,
  decideProjectTrust,
  isTrustedNow,
  type ProjectTrustDecision,
  type TrustFrontEnd,
  type TrustReason,
} from './decide.js'
export { type ConfigFingerprint, changedConfigFiles, fingerprintProjectConfig } from './fingerprint.js'
export { type ProjectTrustConfig, ProjectTrustService, refusalLine } from './service.js'
export { ProjectTrustStore, TRUST_FILE_NAME, type TrustEntry, TrustErrorCode } from './trust-store.js'
