/** Session and session-token options. Part of the public types, re-exported by `authchart`. */
import type { Awaitable, JWT } from "../types.js"

/** What `encode` (and `jwt.encode`) takes. */
export interface JWTEncodeParams<Payload = JWT> {
  /** The claims. `iat`, `exp` and `jti` are always set anew. */
  token?: Payload
  /** Key derivation salt: the session cookie name for session tokens. */
  salt: string
  /** One secret, or several with the newest first. The first encrypts. */
  secret: string | readonly string[]
  /** Lifetime in seconds. Default 30 days. */
  maxAge?: number
}

/** What `decode` (and `jwt.decode`) takes: the token, the salt it was encrypted under, the secret or secrets. */
export interface JWTDecodeParams {
  token?: string
  salt: string
  secret: string | readonly string[]
}

/** `config.jwt`: the session token's lifetime, and optionally its own encode and decode. */
export interface JWTOptions {
  /** Lifetime of a session token in seconds. Default `session.maxAge`. */
  maxAge?: number
  encode?: (params: JWTEncodeParams) => Awaitable<string>
  decode?: (params: JWTDecodeParams) => Awaitable<JWT | null>
}

/** `config.session`: the strategy, lifetimes, and authchart's session options. */
export interface SessionOptions {
  /** `"jwt"` (default), or `"database"` (default when an adapter is set). */
  strategy?: "jwt" | "database"
  /** Seconds until an idle session expires. Default 30 days. */
  maxAge?: number
  /** Seconds between session refreshes. Default 1 day. */
  updateAge?: number
  generateSessionToken?: () => string
  /**
   * Seconds a user's "not before" moment (see `revokeSessions`) is cached per instance, so session
   * reads stay cheap. Other instances see a revocation within this time. Default 5; 0 reads every time.
   */
  revocationCacheTtl?: number
  /**
   * authchart, database sessions: seconds between two writes of a session's "last seen" time to the
   * server-state port's session index (per instance; `listSessions`, `GET /auth/sessions`). Default 300.
   */
  lastSeenInterval?: number
  /**
   * authchart: let credentials sign-ins get database sessions when they are the only providers and
   * `strategy` is `"database"` (Auth.js refuses that configuration with `UnsupportedStrategy`).
   */
  allowCredentials?: boolean
  /**
   * authchart: keep each OAuth/OIDC provider's current tokens (`access_token`, `refresh_token`,
   * `expires_at`) in the server-state store, keyed by user and provider, so `getAccessToken` can hand out
   * a valid access token and refresh it. `"server"` with the defaults, or the options. Off by default
   * (the database strategy still writes the first token set on the account row, as Auth.js does).
   */
  providerTokens?: "server" | ProviderTokensOptions
}

/** Options of `session.providerTokens` (authchart). */
export interface ProviderTokensOptions {
  /** Where the current token set lives: the server-state store (`serverState`). */
  store?: "server"
  /**
   * Seconds before `expires_at` from which an access token counts as expired and is refreshed. Default 60.
   * For a token a refresh got, at most half its lifetime (tokens shorter-lived than the margin are not
   * refreshed at every call).
   */
  refreshMargin?: number
  /**
   * Milliseconds a request waits for a refresh another instance is running before it fails with
   * `AccessTokenUnavailable`. Default: the provider's `timeout` (10 000) plus 5 000.
   */
  refreshWait?: number
}
