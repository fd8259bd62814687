export { DshError, errorMessage, isDshError } from './errors.js'
