export { absolutePath, HomeErrorCode, resolveConfiguredHome, resolveDshHome } from './resolve-home.js'
