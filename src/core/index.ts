export { DshError, errorMessage, isDshError } from './errors.js'
export { currentService, untraced } from './service-ref.js'
