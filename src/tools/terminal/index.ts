// Public surface of the model-facing terminal tools.

export { sendView, startView } from './permission.js'
export {
  TERMINAL_KILL_DESCRIPTION,
  TERMINAL_LIST_DESCRIPTION,
  TERMINAL_READ_DESCRIPTION,
  TERMINAL_RESIZE_DESCRIPTION,
  TERMINAL_SEND_DESCRIPTION,
  TERMINAL_START_DESCRIPTION,
} from './prompt.js'
export { renderList, renderReading, statusText } from './render.js'
export { type TerminalToolsConfig, TerminalToolsPlugin } from './terminal-tools.js'
