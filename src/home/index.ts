export { HomeErrorCode, absolutePath, resolveConfiguredHome, resolveDshHome } from './resolve-home.js'
