// Which inherited environment variables are secrets and never reach a child (bash
// commands, background jobs, hooks, MCP servers): credential-looking names, values
// that carry credentials (a URL with userinfo), and configured extra names — minus
// what the user explicitly allows.

/**
 * Prefixes of model and AI vendors whose variables are keys, or lead to them (an
 * organisation id, a custom endpoint with its key); bash has no use for any of them.
 */
export const CREDENTIAL_VENDOR_PREFIXES = [
  'OPENAI',
  'AZURE_OPENAI',
  'ANTHROPIC',
  'DEEPSEEK',
  'GEMINI',
  'MISTRAL',
  'GROQ',
  'COHERE',
  'OPENROUTER',
  'XAI',
  'TOGETHER',
  'FIREWORKS',
  'PERPLEXITY',
  'REPLICATE',
  'HUGGINGFACE',
  'VOYAGE',
] as const

/** Inherited names matching this are dropped: they look like credentials. Case-insensitive. */
export const CREDENTIAL_NAME_PATTERN = new RegExp(
  [
    // Anywhere in the name.
    'KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|WEBHOOK|COOKIE',
    // A whole part of the name: DB_PASS, SMTP_PASS_FILE, GITHUB_PAT (not PATH, not COMPASS).
    '(?:^|_)(?:PASS|PAT)(?:_|$)',
    // MYSQL_PWD, DB_PWD; never the shell's own PWD and OLDPWD.
    '_PWD(?:_|$)|^PWD_',
    // BASIC_AUTH, NPM_CONFIG__AUTH; SSH_AUTH_SOCK (a socket path git needs) is kept.
    '(?:^|_)AUTH$',
    `^(?:${CREDENTIAL_VENDOR_PREFIXES.join('|')})_`,
  ].join('|'),
  'i',
)

/** A URL whose authority has userinfo (`scheme://user:password@host`, `https://token@host`). */
const CREDENTIAL_URL_PATTERN = /[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+@/i

/** The user's additions to the built-in rule (config `secrets`). */
export interface SecretPolicy {
  /** More names to scrub; `*` matches any run of characters (`CORP_*`). Case-insensitive. */
  scrub?: readonly string[]
  /** Names passed through even though they look secret (exact, case-sensitive). */
  allow?: readonly string[]
}

/** A compiled policy: `isSecret(name, value)`. */
export interface SecretFilter {
  isSecret(name: string, value: string): boolean
}

/** True when a value carries a credential: a URL with userinfo anywhere in it. */
export function valueCarriesCredential(value: string): boolean {
  return value.includes('@') && CREDENTIAL_URL_PATTERN.test(value)
}

export function createSecretFilter(policy: SecretPolicy = {}): SecretFilter {
  const allow = new Set(policy.allow ?? [])
  const extra = (policy.scrub ?? []).map(globToRegExp)
  return {
    isSecret(name, value) {
      if (allow.has(name)) return false
      if (CREDENTIAL_NAME_PATTERN.test(name)) return true
      if (extra.some((pattern) => pattern.test(name))) return true
      return valueCarriesCredential(value)
    },
  }
}

/** The built-in rule alone. */
export const DEFAULT_SECRET_FILTER: SecretFilter = createSecretFilter()

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')
  return new RegExp(`^${escaped}$`, 'i')
}
