/** Provider configuration types. Part of the public types, re-exported by `authchart`. */
import type { EmailConfig } from "../providers/email-types.js"
import type { OAuthConfig } from "../providers/oauth-types.js"
import type { WebAuthnConfig } from "../providers/webauthn-types.js"
import type { FlowDefinition } from "./flow.js"
import type { Awaitable, ProviderType, User } from "../types.js"

/** Options common to every provider. */
export interface CommonProviderOptions {
  id: string
  name: string
  type: ProviderType
  /**
   * The flow that signs in with this provider: a flow id (a built-in or one in `config.flows`) or the
   * flow itself. Default: the flow that serves the provider's `type`.
   */
  flow?: string | FlowDefinition
}

/** One input field of the credentials form on the built-in sign-in page. */
export interface CredentialInput {
  label?: string
  type?: string
  placeholder?: string
  value?: string
  required?: boolean
  autocomplete?: string
  [attribute: string]: unknown
}

/** A credentials (username/password or similar) provider. */
export interface CredentialsConfig<Credentials extends Record<string, CredentialInput> = Record<string, CredentialInput>>
  extends CommonProviderOptions {
  type: "credentials"
  /** Fields shown on the built-in sign-in page. */
  credentials: Credentials
  /**
   * authchart: the field of `credentials` that names the account, the one `authorize` looks the user up
   * by; the per-account limits count it (docs/security.md "Limits"). Default: the only declared field that is not
   * a password, else the only one named `email`, `username`, `identifier`, `login` or `user`; several
   * candidates and no `accountField` is a start-up configuration error. `false`: no field names an
   * account (only the per-client limits apply).
   * @example Credentials({ credentials: { login: {}, tenant: {}, password: { type: "password" } }, accountField: "login", authorize })
   */
  accountField?: (keyof Credentials & string) | false
  /**
   * Check the submitted fields. Return the user to sign in, or `null` for a wrong login
   * (→ `CredentialsSignin`). Throw a `CredentialsSignin` subclass to send your own URL-safe `code`.
   * `credentials` is the whole submitted body.
   */
  authorize: (credentials: Partial<Record<keyof Credentials, unknown>>, request: Request) => Awaitable<User | null>
}

/**
 * A provider of a flow of your own that reads form fields (a phone number, an invitation code): the
 * built-in sign-in page draws `credentials` as the form's fields and posts them, with the CSRF token, to
 * `/callback/<id>`, where the flow's `POST callback` row with `start: true` takes them; the credentials
 * rate limits count it (`accountField` names the field that names the account). There is no `authorize`:
 * the flow's effects check the fields.
 * @example
 * ```ts
 * const sms: FormProviderConfig = { id: "sms", name: "Text message", type: "credentials", credentials: { phone: { label: "Phone", type: "tel" } }, flow: smsFlow }
 * ```
 */
export interface FormProviderConfig<Credentials extends Record<string, CredentialInput> = Record<string, CredentialInput>>
  extends CommonProviderOptions {
  type: "credentials"
  /** Fields shown on the built-in sign-in page, posted to `/callback/<id>`. */
  credentials: Credentials
  /** The field that names the account, for the per-account limits (as {@link CredentialsConfig.accountField}). */
  accountField?: (keyof Credentials & string) | false
  /** The flow that reads the fields: required, since the credentials flow would need an `authorize`. */
  flow: string | FlowDefinition
  authorize?: never
}

/**
 * The provider shapes of the built-in flows, one per `type`, so `switch (config.type)` narrows. Providers
 * of other shapes (an Auth.js preset authchart does not know, a provider of an app's own flow) are
 * {@link ProviderLike}.
 */
export type ProviderConfig = CredentialsConfig | OAuthConfig<never> | EmailConfig | WebAuthnConfig

/**
 * A provider object in Auth.js' shape whose own type authchart does not know, e.g. an
 * `@auth/core/providers/*` preset. Accepted as it is; its fields are checked at start-up, where a
 * wrong one is a configuration error, never a crash.
 */
export interface ProviderLike {
  id: string
  /**
   * One of Auth.js' types, or a type of its own for a provider of an app's flow (`"email-code"`, `"sms"`):
   * such a provider names its `flow`, whose declarations draw its sign-in form and set its limits.
   */
  type: ProviderType | (string & {})
  name?: string
  /** The flow that signs in with this provider (see {@link CommonProviderOptions.flow}). */
  flow?: string | FlowDefinition
}

/**
 * A provider object, or a preset function passed uncalled (`providers: [GitHub]`). Like Auth.js,
 * authchart calls such a function with `{}` to learn its id, then with the `AUTH_<ID>_ID`,
 * `AUTH_<ID>_SECRET`, `AUTH_<ID>_ISSUER` and `AUTH_<ID>_KEY` values that are set.
 */
export type Provider = ProviderConfig | FormProviderConfig | ProviderLike | ((options: never) => ProviderConfig | ProviderLike)
