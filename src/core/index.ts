export { DshError, errorMessage, isDshError } from './errors.js'
export { findProjectRoot, foldersFromRoot, PROJECT_MARKERS } from './project-root.js'
export { currentService, hasListeners, untraced } from './service-ref.js'
export { type TerminalTextOptions, toTerminalText } from './terminal-text.js'
