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
import type { Adapter } from "./adapters/types.js"
import type { FlowDefinition } from "./types/flow.js"
import type { InspectOption } from "./types/inspection.js"
import type { Route } from "./types/route.js"
import type { ServerState } from "./types/server-state.js"
import type { FlowStore } from "./types/flow-store.js"
import type { CallbacksOptions, EventCallbacks } from "./types/callbacks.js"
import type { CookieKey, CookieOption, PagesOptions, Theme } from "./types/cookies.js"
import type { LoggerInstance } from "./types/logger.js"
import type { AccountsOptions, LogoutOptions } from "./types/logout-accounts.js"
import type { FactorsOptions } from "./types/factors.js"
import type { Provider } from "./types/providers.js"
import type { RateLimitConfig } from "./types/rate-limit.js"
import type { JWTOptions, SessionOptions } from "./types/session-options.js"

export type {
  CommonProviderOptions,
  CredentialInput,
  CredentialsConfig,
  FormProviderConfig,
  ProviderConfig,
  ProviderLike,
  Provider,
} from "./types/providers.js"
export type { CookieOption, CookieKey, CookiesOptions, Theme, PagesOptions } from "./types/cookies.js"
export type { JWTEncodeParams, JWTDecodeParams, JWTOptions, SessionOptions, ProviderTokensOptions } from "./types/session-options.js"
export type { SessionCallbackParams, JwtCallbackParams, CallbacksOptions, EventCallbacks } from "./types/callbacks.js"
export type { RateLimitRuleName, RateLimitRule, RateLimitRequest, RateLimitedEvent, RateLimitConfig } from "./types/rate-limit.js"
export type { WarningCode, LoggerInstance } from "./types/logger.js"
export type { LogoutOptions, AccountsOptions } from "./types/logout-accounts.js"
export type { FactorsOptions } from "./types/factors.js"

/** A value, or a promise of it. */
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
  /**
   * When the user last proved who they are (seconds since the epoch): the sign-in, or a later
   * re-authentication (`requireRecentAuth`). Absent on a session authchart did not issue (an Auth.js one).
   */
  authTime?: number
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
  /** When the user last proved who they are (seconds since the epoch): the sign-in or a re-authentication. */
  authTime?: number
}

/** The decoded session token. Extend by module augmentation. */
export interface JWT extends Record<string, unknown>, DefaultJWT {}

/** The kind of a provider. */
export type ProviderType = "oauth" | "oidc" | "email" | "credentials" | "webauthn"

/** A JSON value, as a token response's extra parameters are (oauth4webapi's `JsonValue`). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue | undefined }

/**
 * Tokens an OAuth provider returned, as stored on an account: Auth.js' `TokenSet` (oauth4webapi's token
 * response, every field optional), so an account passes to an `@auth/*-adapter` method as it is.
 */
export interface TokenSet {
  access_token?: string
  /** Lower-cased by oauth4webapi: `"bearer"`, `"dpop"` or another registered type. */
  token_type?: "bearer" | "dpop" | Lowercase<string>
  id_token?: string
  refresh_token?: string
  scope?: string
  expires_at?: number
  expires_in?: number
  session_state?: string
  [key: string]: JsonValue | undefined
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
   * `production`, off otherwise; `false` turns them off, `{ enabled: true }` on (docs/security.md "Limits").
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
   * Logging out at the identity provider too (docs/sessions.md "Logout at the provider"): RP-initiated logout on
   * `POST /signout` and the back-channel logout receiver `POST /backchannel-logout/<provider>`.
   */
  logout?: LogoutOptions
  /** authchart: managing linked accounts (`unlinkAccount`, docs/sessions.md "Sessions and accounts the user can manage"). */
  accounts?: AccountsOptions
  /** authchart: the second-factor pages (`<basePath>/factors`, docs/second-factors.md). */
  factors?: FactorsOptions
}
