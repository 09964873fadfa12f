/**
 * How to fix each configuration error whose message is Auth.js' own (./assert.ts): the default
 * logger prints it on an `[auth][help]` line below the error, so the message itself stays Auth.js'.
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
