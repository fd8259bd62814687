// Public surface of the file tools: read, write, edit, multi_edit, glob, grep, ls, todo_write.

export { applyEdits, type EditOutcome, type EditSpec } from './apply-edits.js'
export { diffStats, unifiedDiff } from './diff.js'
export { FILE_HISTORY_FOLDER, FileHistoryStore } from './file-history.js'
export { findRipgrep } from './grep-rg.js'
export { createHiddenPathGuard, type HiddenPathGuard } from './hidden-guard.js'
export { outsideNote, realOrSelf, resolveToolPath, type ToolPath } from './paths.js'
export { FS_TOOL_NAMES, type FsToolsConfig, FsToolsPlugin } from './plugin.js'
export {
  describeRewind,
  planRewind,
  type RewindOutcome,
  type RewindTarget,
  rewindFiles,
  rewindNotice,
  rewindSession,
} from './rewind.js'
export { checkedToolPath, cwdOf, isRefusal } from './shared.js'
export { renderTodos } from './todo-tool.js'
export { walkFiles } from './walk.js'
