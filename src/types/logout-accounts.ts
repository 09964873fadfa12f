/** Logout and account-management options. Part of the public types, re-exported by `authchart`. */
import type { AdapterUser } from "../adapters/types.js"
import type { Awaitable } from "../types.js"

/** `logout` in the config (docs/sessions.md "Logout at the provider"). */
export interface LogoutOptions {
  /**
   * The OIDC provider `POST /signout` logs out at when the request names none (`provider` field).
   * Default: none, so a plain `POST /signout` signs out locally only, as in Auth.js.
   */
  provider?: string
  /**
   * The `post_logout_redirect_uri` sent to the provider, exactly as registered there: the absolute URL
   * of `<basePath>/signout-callback`. Default `<origin><basePath>/signout-callback` (the origin as for
   * `redirect_uri`: `AUTH_URL` when set).
   */
  postLogoutRedirectUri?: string
  /**
   * JWT strategy: keep the provider's ID token in the (encrypted) session token, so RP-initiated
   * logout can send it as `id_token_hint`. Adds about 1 kB to the session cookie. Default false. The
   * database strategy reads it from the account row (where Auth.js stores `id_token`).
   */
  keepIdToken?: boolean
  /** Seconds a back-channel logout token may be old (its `iat`). Default 300. */
  maxTokenAge?: number
  /**
   * The built-in sign-out page also offers "Sign out of <provider> too" for each OIDC provider whose ID
   * token the session holds and that has an `end_session_endpoint`. Default false: the page is Auth.js'
   * (one "Sign out" button, which logs out at `provider` when that is set).
   */
  offerOnSignOutPage?: boolean
}

/** Options of account management (`unlinkAccount` and its endpoint). */
export interface AccountsOptions {
  /**
   * Whether the user can sign in in a way authchart cannot see, such as a password your credentials
   * provider checks. The unlink guard asks it only when no linked account, passkey or email sign-in
   * would be left.
   */
  hasOtherSignIn?: (user: AdapterUser) => Awaitable<boolean>
}
