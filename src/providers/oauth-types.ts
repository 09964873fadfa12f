/**
 * The shape of an OAuth 2 / OpenID Connect provider: Auth.js' `OAuthConfig`, so a provider object or an
 * Auth.js preset works unchanged.
 */
import type { Awaitable, CommonProviderOptions, Profile, TokenSet, User } from "../types.js"

/** An endpoint as a URL, or `{ url, params }` (params become query parameters). */
export type EndpointSetting<Extra extends object = object> = string | ({ url?: string; params?: Record<string, unknown> } & Partial<Extra>)

/** What a provider's own `userinfo.request` is given: the token set and the provider. */
export interface UserinfoRequestContext {
  tokens: TokenSet
  /** The provider's id, userinfo URL and client id (Trakt, for one, wants it as an API key). */
  provider: { id: string; userinfo?: { url?: string }; clientId?: string }
}

/** A check an OAuth/OIDC sign-in makes (`checks`); `none` for none. */
export type OAuthCheck = "pkce" | "state" | "nonce" | "none"

/** The options a preset takes (client id and secret, issuer, endpoints, …), as Auth.js'. */
export interface OAuthUserConfig<P extends object = Profile> {
  clientId?: string
  clientSecret?: string
  issuer?: string
  wellKnown?: string
  authorization?: EndpointSetting
  token?: EndpointSetting<{ conform?(response: Response): Awaitable<Response | undefined> }>
  userinfo?: EndpointSetting<{ request?(context: UserinfoRequestContext): Awaitable<object> }>
  client?: {
    /** `client_secret_basic` (default with a secret), `client_secret_post` or `none`. */
    token_endpoint_auth_method?: "client_secret_basic" | "client_secret_post" | "none" | (string & {})
    [metadata: string]: unknown
  }
  /** Defaults: PKCE (S256) and state for every provider, plus nonce for OIDC. */
  checks?: OAuthCheck[]
  /** Maps the provider's profile to a user. The `id` is always turned into a string. */
  profile?(profile: P, tokens: TokenSet): Awaitable<User>
  /** Picks the token fields stored on the account. */
  // biome-ignore lint/suspicious/noConfusingVoidType: Auth.js lets this callback return nothing
  account?(tokens: TokenSet): Record<string, unknown> | undefined | void
  style?: { logo?: string; bg?: string; text?: string; brandColor?: string }
  allowDangerousEmailAccountLinking?: boolean
  redirectProxyUrl?: string
  /** OIDC: read the profile from the ID token (default) or, when false, from userinfo. */
  idToken?: boolean
  /** Allow plain `http:` endpoints on a non-loopback host. */
  allowInsecureRequests?: boolean
  /** Extra authorization parameters a sign-in request may pass, besides the standard allow-list. */
  allowedAuthorizationParams?: string[]
  /** Per-request timeout for calls to this provider, in milliseconds (default 10 000). */
  timeout?: number
  id?: string
  name?: string
}

/** An OAuth 2 / OIDC provider as the config holds it: its options with `id`, `name` and `type`. */
export interface OAuthConfig<P extends object = Profile> extends OAuthUserConfig<P> {
  id: string
  name: string
  type: "oauth" | "oidc"
  options?: OAuthUserConfig<P>
  /** The flow that signs in with this provider (default: the OAuth flow). */
  flow?: CommonProviderOptions["flow"]
}

/** An OpenID Connect provider configuration. */
export type OIDCConfig<P extends object = Profile> = OAuthConfig<P> & { type: "oidc" }
