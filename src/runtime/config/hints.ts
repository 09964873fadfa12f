/**
 * What each configuration error says (`configMessages`, Auth.js' own text where Auth.js has the check) and
 * how to fix it (`configHint`): the default logger prints the fix on an `[auth][help]` line below the
 * error, so the message itself stays Auth.js'. The checks are in ../front/assert.ts.
 */
import type { AuthError } from "../../errors.js"

/** The shortest secret authchart accepts, old rotation secrets included. */
export const MIN_SECRET_LENGTH = 32

export const GENERATE_SECRET = "Generate one with: openssl rand -base64 33"

const CONFIG_HINTS: Readonly<Record<string, string>> = {
  UntrustedHost:
    "Set AUTH_URL (or `url`) to the app's public URL, or list the host in `trustHost` (`true` trusts any Host: only behind a proxy you control).",
  MissingSecret: `Set AUTH_SECRET (or \`secret\`) to ${MIN_SECRET_LENGTH}+ random characters. ${GENERATE_SECRET}`,
  InvalidEndpoints: "Set the provider's `issuer` (or AUTH_<PROVIDER>_ISSUER) for discovery, or give each endpoint as a URL or `{ url }`.",
  MissingAuthorize: "Give the credentials provider an `authorize(credentials, request)` that returns the user or null.",
  UnsupportedStrategy:
    'authchart can give credentials users database sessions: set `session.allowCredentials: true` to opt in, or use `session.strategy: "jwt"`.',
  MissingAdapter:
    'Pass `adapter` (database sessions, passkeys and email links need one; email links with JWT sessions can use a token-keeping flow store, `RedisFlowStore`), or use `session.strategy: "jwt"`.',
  DuplicateConditionalUI: "Set `enableConditionalUI` on one WebAuthn provider only.",
  MissingWebAuthnAutocomplete: 'Add "webauthn" to a form field\'s autocomplete, e.g. "username webauthn".',
}

/**
 * How to fix a configuration error, for the default logger's `[auth][help]` line; undefined for errors
 * whose message says it already.
 * @example configHint(new MissingSecret("Please define a `secret`")) // "Set AUTH_SECRET (or `secret`) to 32+ …"
 */
export function configHint(error: AuthError): string | undefined {
  return CONFIG_HINTS[error.type]
}

/**
 * The text of each configuration error. Where Auth.js has the same check it is Auth.js' message, word for
 * word (apps, tests and log alerts compare it); how to fix it is in `configHint` below.
 */
export const configMessages = {
  untrustedHost: (url?: string) => `Host must be trusted.${url ? ` URL was: ${url}` : ""}`,
  missingSecret: () => "Please define a `secret`",
  shortSecret: () =>
    `Please define a \`secret\` of at least ${MIN_SECRET_LENGTH} characters: authchart refuses any secret under that length, old rotation secrets included. ${GENERATE_SECRET}`,
  invalidEndpoints: (id: string, key: string) =>
    `Provider "${id}" is missing both \`issuer\` and \`${key}\` endpoint config. At least one of them is required`,
  invalidEndpointUrl: (id: string, key: string, value: string) =>
    `Provider "${id}" has an invalid \`${key}\` URL: ${JSON.stringify(value)}. Give an absolute https URL; a preset that builds its URLs from \`issuer\` needs \`issuer\` (or AUTH_${envKey(id)}_ISSUER).`,
  missingAuthorize: () => "Must define an authorize() handler to use credentials authentication provider",
  unsupportedStrategy: () => "Signing in with credentials only supported if JWT strategy is enabled",
  experimentalWebAuthn: () =>
    "WebAuthn is an experimental feature. To enable it, set `experimental.enableWebAuthn` to `true` in your config",
  databaseAdapter: () => "Database session requires an adapter",
  missingAdapterMethods: (missing: readonly string[]) =>
    `Required adapter methods were missing: ${missing.join(", ")}. The enabled flows call them; add them to the adapter or turn the flow off.`,
  duplicateConditionalUI: () =>
    "Multiple webauthn providers have 'enableConditionalUI' set to True. Only one provider can have this option enabled at a time",
  logoutProvider: (id: string) =>
    `\`logout.provider\` names "${id}", which is not an OIDC provider of this config. Name the \`id\` of a provider of type "oidc" (logout at the provider needs its end_session_endpoint), or leave it out.`,
  missingWebAuthnAutocomplete: (id: string) =>
    `Provider "${id}" has 'enableConditionalUI' set to True, but none of its formFields have 'webauthn' in their autocomplete param`,
} as const

function envKey(id: string): string {
  return id.toUpperCase().replace(/-/g, "_")
}
