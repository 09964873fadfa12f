/**
 * Sign in with a passkey or security key (WebAuthn). Experimental, as in Auth.js: enable it with
 * `experimental: { enableWebAuthn: true }`, and give an adapter with the authenticator methods.
 *
 * @example
 * ```ts
 * import WebAuthn from "authchart/providers/webauthn"
 * ExpressAuth({ adapter, experimental: { enableWebAuthn: true }, providers: [WebAuthn()] })
 * ```
 * The built-in sign-in page shows an email field with "Sign in" and "Register" buttons, and offers
 * existing passkeys in the field's autofill (conditional UI). The browser script is served by authchart
 * from `<basePath>/webauthn-script` (no CDN). Needs the optional peers `@simplewebauthn/server` (checks
 * the responses) and `@simplewebauthn/browser` (the served script):
 * `npm install @simplewebauthn/server @simplewebauthn/browser`.
 *
 * User verification (PIN, biometrics) is checked when the provider requires it: `Passkey` does; plain
 * `WebAuthn()` asks for it where available and also accepts authenticators without it (set
 * `verifyAuthenticationOptions.requireUserVerification` to decide yourself).
 *
 * Your own page drives the same endpoints: `GET <basePath>/webauthn-options/webauthn?action=register&email=…`
 * answers `{ action, options }` for `startRegistration` / `startAuthentication`, and the response goes
 * back as a form POST to `<basePath>/callback/webauthn` with `action` and `data` (the response as JSON).
 */
import type {
  GetUserInfo,
  GetUserInfoParams,
  RelayingParty,
  WebAuthnConfig,
  WebAuthnUserConfig,
  WebAuthnUserInfo,
} from "./webauthn-types.js"

export type { GetUserInfo, GetUserInfoParams, RelayingParty, WebAuthnConfig, WebAuthnUserConfig, WebAuthnUserInfo }

/** Five minutes: how long the browser waits, and how long an issued challenge stays valid. */
export const DEFAULT_WEBAUTHN_TIMEOUT = 5 * 60 * 1000

export default function WebAuthn(options: WebAuthnUserConfig = {}): WebAuthnConfig {
  return {
    enableConditionalUI: true,
    formFields: { email: { label: "Email", required: true, autocomplete: "username webauthn" } },
    ...options,
    id: options.id ?? "webauthn",
    name: options.name ?? "WebAuthn",
    authenticationOptions: { timeout: DEFAULT_WEBAUTHN_TIMEOUT, ...options.authenticationOptions },
    registrationOptions: { timeout: DEFAULT_WEBAUTHN_TIMEOUT, ...options.registrationOptions },
    type: "webauthn",
  }
}
