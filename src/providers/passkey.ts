/**
 * Sign in with a passkey: `WebAuthn()` under the id `passkey`, with a discoverable credential
 * (resident key) and user verification (PIN, biometrics) required when registering, asked for when
 * signing in, and checked in both responses.
 *
 * @example
 * ```ts
 * import Passkey from "authchart/providers/passkey"
 * ExpressAuth({ adapter, experimental: { enableWebAuthn: true }, providers: [Passkey()] })
 * ```
 * Options are those of `WebAuthn()`; nested options you give replace these defaults field by field.
 */
import WebAuthn from "./webauthn.js"
import type { WebAuthnConfig, WebAuthnUserConfig } from "./webauthn-types.js"

export type { WebAuthnConfig, WebAuthnUserConfig }

export default function Passkey(options: WebAuthnUserConfig = {}): WebAuthnConfig {
  return WebAuthn({
    ...options,
    id: options.id ?? "passkey",
    name: options.name ?? "Passkey",
    authenticationOptions: { userVerification: "required", ...options.authenticationOptions },
    registrationOptions: {
      ...options.registrationOptions,
      authenticatorSelection: {
        residentKey: "required",
        userVerification: "required",
        ...options.registrationOptions?.authenticatorSelection,
      },
    },
    verifyAuthenticationOptions: { requireUserVerification: true, ...options.verifyAuthenticationOptions },
    verifyRegistrationOptions: { requireUserVerification: true, ...options.verifyRegistrationOptions },
  })
}
