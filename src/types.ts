/**
 * Public types, field for field those of Auth.js v5, so an application's code and its module
 * augmentations move over unchanged.
 *
 * Extend `Session` and `JWT` by module augmentation:
 * ```ts
 * declare module "authchart" {
 *   interface Session { user: { role: string } & DefaultSession["user"] }
 *   interface JWT { role?: string }
 * }
 * ```
 */
import type { AuthError } from "./errors.js"
import type { FlowDefinition } from "./runtime/flow.js"
import type { FlowStore } from "./runtime/store.js"
import type { ServerState } from "./runtime/server-state.js"
import type { InspectOption } from "./runtime/inspect.js"
import type { Route } from "./runtime/routes.js"
import type { OAuthConfig } from "./providers/oauth-types.js"
import type { EmailConfig } from "./providers/email-types.js"
import type { WebAuthnConfig } from "./providers/webauthn-types.js"
import type { Adapter, AdapterSession, AdapterUser } from "./adapters/types.js"

export type Awaitable<T> = T | PromiseLike<T>
/** An ISO 8601 date string, as sent in `session.expires`. */
export type ISODateString = string

/** The shape of a user as the providers and callbacks see it. */
export interface User {
  id?: string
  name?: string | null
  email?: string | null
  image?: string | null
}

/** What every session has before an application extends it. */
export interface DefaultSession {
  user?: User
  expires: ISODateString
  /**
   * `"RefreshTokenError"` when a provider refused to refresh the user's tokens (`invalid_grant`) and the
   * user must sign in with it again (with `session.providerTokens`; see `getAccessToken`).
   */
  error?: "RefreshTokenError"
}

/** The active session as `GET /session` and `getSession` return it. Extend by module augmentation. */
export interface Session extends DefaultSession {}

/** Claims authchart writes into a session JWT. */
export interface DefaultJWT extends Record<string, unknown> {
  name?: string | null
  email?: string | null
  picture?: string | null
  sub?: string
  iat?: number
  exp?: number
  jti?: string
}

/** The decoded session token. Extend by module augmentation. */
export interface JWT extends Record<string, unknown>, DefaultJWT {}

/** The kind of a provider. */
export type ProviderType = "oauth" | "oidc" | "email" | "credentials" | "webauthn"

/** Tokens an OAuth provider returned, as stored on an account. */
export interface TokenSet {
  access_token?: string
  token_type?: string
  id_token?: string
  refresh_token?: string
  scope?: string
  expires_at?: number
  expires_in?: number
  session_state?: string
  [key: string]: unknown
}

/** A user's account with one provider. */
export interface Account extends TokenSet {
  providerAccountId: string
  userId?: string
  provider: string
  type: ProviderType
}

/** The user info a provider returned. */
export interface Profile {
  id?: string | null
  sub?: string | null
  name?: string | null
  given_name?: string | null
  family_name?: string | null
  middle_name?: string | null
  nickname?: string | null
  preferred_username?: string | null
  profile?: string | null
  picture?: string | null | unknown
  website?: string | null
  email?: string | null
  email_verified?: boolean | null
  gender?: string | null
  birthdate?: string | null
  zoneinfo?: string | null
  locale?: string | null
  phone_number?: string | null
  updated_at?: Date | string | number | null
  address?: {
    formatted?: string | null
    street_address?: string | null
    locality?: string | null
    region?: string | null
    postal_code?: string | null
    country?: string | null
  } | null
  [claim: string]: unknown
}

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
   * Check the submitted fields. Return the user to sign in, or `null` for a wrong login
   * (→ `CredentialsSignin`). Throw a `CredentialsSignin` subclass to send your own URL-safe `code`.
   * `credentials` is the whole submitted body.
   */
  authorize: (credentials: Partial<Record<keyof Credentials, unknown>>, request: Request) => Awaitable<User | null>
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
  type: ProviderType
  name?: string
  /** The flow that signs in with this provider (see {@link CommonProviderOptions.flow}). */
  flow?: string | FlowDefinition
}

/**
 * A provider object, or a preset function passed uncalled (`providers: [GitHub]`). Like Auth.js,
 * authchart calls such a function with `{}` to learn its id, then with the `AUTH_<ID>_ID`,
 * `AUTH_<ID>_SECRET`, `AUTH_<ID>_ISSUER` and `AUTH_<ID>_KEY` values that are set.
 */
export type Provider = ProviderConfig | ProviderLike | ((options: never) => ProviderConfig | ProviderLike)

/** Options of one cookie, in the `cookie` package's vocabulary. */
export interface CookieOption {
  name: string
  options: {
    httpOnly?: boolean
    sameSite?: "lax" | "strict" | "none" | boolean
    path?: string
    secure?: boolean
    domain?: string
    maxAge?: number
    expires?: Date
    partitioned?: boolean
    priority?: "low" | "medium" | "high"
  }
}

export type CookieKey = "sessionToken" | "callbackUrl" | "csrfToken" | "pkceCodeVerifier" | "state" | "nonce" | "webauthnChallenge" | "flow"

export type CookiesOptions = Record<CookieKey, CookieOption>

/** Look of the built-in pages. */
export interface Theme {
  colorScheme?: "auto" | "dark" | "light"
  logo?: string
  brandColor?: string
  buttonText?: string
}

/** Paths of the application's own pages; each replaces a built-in page by a redirect. */
export interface PagesOptions {
  signIn?: string
  signOut?: string
  error?: string
  verifyRequest?: string
  newUser?: string
}

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

export interface JWTDecodeParams {
  token?: string
  salt: string
  secret: string | readonly string[]
}

export interface JWTOptions {
  /** Lifetime of a session token in seconds. Default `session.maxAge`. */
  maxAge?: number
  encode?: (params: JWTEncodeParams) => Awaitable<string>
  decode?: (params: JWTDecodeParams) => Awaitable<JWT | null>
}

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
  /** Seconds before `expires_at` from which an access token counts as expired and is refreshed. Default 60. */
  refreshMargin?: number
  /**
   * Milliseconds a request waits for a refresh another instance is running before it fails with
   * `AccessTokenUnavailable`. Default: the provider's `timeout` (10 000) plus 5 000.
   */
  refreshWait?: number
}

/**
 * The arguments of the `session` callback: Auth.js' parameter type, so a callback written for Auth.js
 * compiles unchanged. What arrives depends on the session strategy:
 * - `jwt`: `{ session, token }`; `session.expires` is an ISO string. On an update (`POST /session`)
 *   also `trigger: "update"` and `newSession` (the posted `data`).
 * - `database`: `{ session, user, newSession }`, no `token`; `session` is the adapter's session (its
 *   `expires` a `Date`, `sessionToken`, `userId`) plus `user`. On an update also `trigger: "update"`, and
 *   `newSession` holds the posted `data`.
 *
 * @example
 * ```ts
 * session({ session, token, user }) {
 *   return { ...session, user: { ...session.user, id: token ? token.sub : user.id } }
 * }
 * ```
 */
export type SessionCallbackParams = ({
  /** Database strategy: the adapter's session plus its user. */
  session: { user: AdapterUser } & AdapterSession
  /** Database strategy: the session's user, as the adapter returned it. */
  user: AdapterUser
} & {
  /** JWT strategy: the default session built from the token. */
  session: Session
  /** JWT strategy: the decoded session token (after the `jwt` callback). */
  token: JWT
}) & {
  /** The `data` of an update (`POST /session`). */
  newSession: unknown
  trigger?: "update"
}

export interface CallbacksOptions {
  /**
   * Decide whether a user may sign in: `true` to go on, `false` for `AccessDenied`, or a URL to
   * redirect to instead. A throw is `AccessDenied` too (an `AuthError` is kept as it is).
   */
  signIn?: (params: {
    user: User
    account: Account | null
    profile?: Profile
    email?: { verificationRequest?: boolean }
    credentials?: Record<string, unknown>
  }) => Awaitable<boolean | string>
  /** Where to send the user after sign-in or sign-out. Default: same origin only. */
  redirect?: (params: { url: string; baseUrl: string }) => Awaitable<string>
  /** Shape what `/session` and `getSession` return. See {@link SessionCallbackParams} for the arguments. */
  session?: (params: SessionCallbackParams) => Awaitable<Session | DefaultSession>
  /** Shape the session token. Return `null` to sign the user out. */
  jwt?: (params: {
    token: JWT
    user?: User
    account?: Account | null
    profile?: Profile
    trigger?: "signIn" | "signUp" | "update"
    isNewUser?: boolean
    session?: unknown
  }) => Awaitable<JWT | null>
}

export interface EventCallbacks {
  signIn?: (message: { user: User; account: Account | null; profile?: Profile; isNewUser?: boolean }) => Awaitable<void>
  signOut?: (message: { token?: JWT | null; session?: unknown }) => Awaitable<void>
  createUser?: (message: { user: User }) => Awaitable<void>
  updateUser?: (message: { user: User }) => Awaitable<void>
  linkAccount?: (message: { user: User; account: Account; profile: User }) => Awaitable<void>
  session?: (message: { session: Session; token?: JWT }) => Awaitable<void>
  /**
   * A rate limit started refusing (once per lockout, not per refused request). `account` is the
   * identifier's keyed hash, never the identifier itself.
   */
  rateLimited?: (message: RateLimitedEvent) => Awaitable<void>
  /** authchart: an account was unlinked from its user (`unlinkAccount`, `POST /auth/unlink-account/<provider>`). */
  unlinkAccount?: (message: { user: User; account: Account }) => Awaitable<void>
}

/** The limits authchart applies (README "Limits"); each can be tuned or turned off in `rateLimit.rules`. */
export type RateLimitRuleName =
  | "passwordAccount"
  | "passwordClient"
  | "passwordAccounts"
  | "emailAddress"
  | "emailClient"
  | "webauthnClient"
  | "oauthClient"
  | "backchannelClient"
  | "accountClient"
  | "client"

/** At most `max` hits in a fixed window of `window` seconds (the window starts at the first hit). */
export interface RateLimitRule {
  window: number
  max: number
}

/** What the `rateLimit.key` and `rateLimit.skip` hooks see of a request about to be counted. */
export interface RateLimitRequest {
  readonly rule: RateLimitRuleName
  /** The client as counted: the integration's client IP (IPv6 per /64), or undefined when none was given. */
  readonly client: string | undefined
  readonly method: string
  readonly action: string
  readonly providerId: string | undefined
  readonly headers: { get(name: string): string | null }
}

/** The `rateLimited` event's message. */
export interface RateLimitedEvent {
  readonly rule: RateLimitRuleName
  readonly client: string | undefined
  /** Keyed hash of the account or address (per-account rules only). */
  readonly account: string | undefined
  /** Seconds until the rule admits requests again. */
  readonly retryAfter: number
}

/** `rateLimit` in the config (README "Limits"). */
export interface RateLimitConfig {
  /** Default: true when `NODE_ENV` is `production`. */
  enabled?: boolean
  /** Per-rule overrides merged over the defaults; `false` turns one rule off. */
  rules?: { [K in RateLimitRuleName]?: Partial<RateLimitRule> | false }
  /** The client key to count under instead of the IP (an API key, a tenant); undefined keeps the IP. */
  key?: (request: RateLimitRequest) => string | undefined
  /** True to not count this request under this rule (health checks, internal IPs). */
  skip?: (request: RateLimitRequest) => boolean
  /**
   * Rules that refuse the request when the server-state port fails (Redis down); the others let it
   * through. Default: the three password rules.
   */
  failClosed?: readonly RateLimitRuleName[]
}

export type WarningCode =
  | "debug-enabled"
  | "csrf-disabled"
  | "env-url-basepath-redundant"
  | "env-url-basepath-mismatch"
  | "experimental-webauthn"
  | "express-trust-proxy"

export interface LoggerInstance {
  warn: (code: WarningCode) => void
  error: (error: AuthError | Error) => void
  debug: (message: string, metadata?: unknown) => void
}

/** Everything `Auth`, `ExpressAuth` and `getSession` accept. */
export interface AuthConfig {
  providers: Provider[]
  /** One secret or several (newest first). At least 32 characters. Default from `AUTH_SECRET`. */
  secret?: string | string[]
  session?: SessionOptions
  jwt?: JWTOptions
  pages?: PagesOptions
  callbacks?: CallbacksOptions
  events?: EventCallbacks
  /** The database adapter (the Auth.js `Adapter` interface). */
  adapter?: Adapter
  debug?: boolean
  logger?: Partial<LoggerInstance>
  theme?: Theme
  /** Default: true when the request URL is `https:`. */
  useSecureCookies?: boolean
  /** Overrides of cookie names and options, merged over the defaults. */
  cookies?: Partial<Record<CookieKey, Partial<CookieOption>>>
  /**
   * Which request hosts may become the origin of generated URLs when no `url`/`AUTH_URL` pins it:
   * `true` any host (you vouch for your proxy), a list of hosts (`"app.example.com"`,
   * `"app.example.com:8443"`, `"*.example.com"` or an origin `"https://app.example.com"`), or `false`.
   * Default from `AUTH_TRUST_HOST` (same forms, comma-separated), or true outside production.
   */
  trustHost?: boolean | string[]
  /**
   * The app's public URL, origin and optional base path (`https://app.example.com/auth`). When set (here
   * or as `AUTH_URL`), every generated URL uses it and the request's `Host` is never read.
   */
  url?: string
  /** Where the routes are mounted. Default `/auth` (or `AUTH_URL`'s path). */
  basePath?: string
  redirectProxyUrl?: string
  /** Pass the exported `raw` symbol to get the internal response object back. */
  raw?: symbol
  /** Pass the exported `skipCSRFCheck` symbol to turn CSRF checks off (only behind your own). */
  skipCSRFCheck?: symbol
  experimental?: { enableWebAuthn?: boolean }
  /** Where in-flight flow state lives. Default: sealed cookies. */
  flowStore?: FlowStore
  /**
   * Where single-use claims (flow snapshots, TOTP codes, WebAuthn challenges, email tokens), attempt
   * counts and session revocations live. Default: in this process (`memoryServerState()`); several
   * instances need a shared one (`RedisServerState` from `authchart/stores/redis`).
   */
  serverState?: ServerState
  /**
   * Brute-force and abuse limits, counted in `serverState`. Default: on when `NODE_ENV` is
   * `production`, off otherwise; `false` turns them off, `{ enabled: true }` on (README "Limits").
   */
  rateLimit?: boolean | RateLimitConfig
  /** Extra flows, or replacements of built-in ones, by `defineFlow`. */
  flows?: FlowDefinition[]
  /** Upper bound in milliseconds for one flow step (all its effects). Default 15 000. */
  flowTimeout?: number
  /**
   * Receives the redacted inspection stream of every flow run (request, transition, effect, persist,
   * end), or an `@statelyai/inspect` inspector (xstate's events, contexts redacted). Development aid.
   */
  inspect?: InspectOption
  /** Extra route rows served under the base path (for example the inspector page). */
  routes?: readonly Route[]
  /**
   * Logging out at the identity provider too (README "Logout at the provider"): RP-initiated logout on
   * `POST /signout` and the back-channel logout receiver `POST /backchannel-logout/<provider>`.
   */
  logout?: LogoutOptions
  /** authchart: managing linked accounts (`unlinkAccount`, README "Sessions and accounts the user can manage"). */
  accounts?: AccountsOptions
}

/** `logout` in the config (README "Logout at the provider"). */
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
