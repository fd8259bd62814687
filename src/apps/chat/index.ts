// Public surface of the chat app: `chatCommand`, what `dsh` and `dsh chat` run.

export { chatCommand } from './command.js'
