// Public surface of the hook seam: the Claude Code and Codex bridge plugins and the
// shared protocol library (settings, matchers, output, merging, records).

export { CLAUDE_CODE_TOOL_NAMES, claudeCodeToolName } from '../permissions/claude-code-tool-names.js'
export { CLAUDE_CODE_SUBAGENT_TYPE, claudeCodeDialect } from './claude-code/dialect.js'
export { claudeCodeHooksPlugin } from './claude-code/plugin.js'
export { CODEX_TOOL_NAMES, codexDialect, codexToolName } from './codex/dialect.js'
export { codexHooksPlugin } from './codex/plugin.js'
export type { HookBridgeConfig } from './protocol/bridge.js'
export { createHookBridgePlugin, HOOK_FILE_LOCATIONS } from './protocol/bridge.js'
export { loadHookFiles, parseHookSettings, resolveHookFilePath } from './protocol/config.js'
export type { HookDialect, HookFacts, PayloadServices } from './protocol/dialect.js'
export type { CompiledGroup, HookDispatch, HookTable } from './protocol/dispatch.js'
export { compileHookTable, dispatchHooks } from './protocol/dispatch.js'
export { HookErrorCode } from './protocol/errors.js'
export type { HookListing, HookListRow, ListHooksOptions } from './protocol/listing.js'
export { DOCUMENTED_EVENTS, listHooks } from './protocol/listing.js'
export type { CompiledMatcher } from './protocol/matcher.js'
export { compileMatcher } from './protocol/matcher.js'
export { mergeOutcomes } from './protocol/merge.js'
export type { HookOutput, InterpretOptions } from './protocol/output.js'
export { interpretHookRun, MAX_HOOK_TEXT_CHARS, parseHookOutput } from './protocol/output.js'
export type { HookRecord, HookRecordInfo, HookRecordSink } from './protocol/records.js'
export {
  hookInvokedRecord,
  hookResultRecord,
  MAX_STDERR_SUMMARY_BYTES,
  sessionSink,
  truncateUtf8,
} from './protocol/records.js'
export type { HookRunRequest } from './protocol/runner.js'
export { DEFAULT_HOOK_TIMEOUT_MS, runHookCommand } from './protocol/runner.js'
export type {
  HookCommand,
  HookDecision,
  HookDialectName,
  HookEventName,
  HookGroup,
  HookOutcome,
  HookRun,
  HookSettings,
  HookWarn,
  MergedDecision,
  MergedOutcome,
} from './protocol/types.js'
