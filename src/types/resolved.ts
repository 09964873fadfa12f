/**
 * A config as the runtime holds it once resolved (frozen, never changed per request), and the resolved
 * pieces it is made of. Types only; `resolveConfig` builds it.
 */
import type { Adapter } from "../adapters/types.js"
import type { AuthError } from "../errors.js"
import type { AuthConfig, Awaitable, JWT, ProviderConfig } from "../types.js"
import type { CallbacksOptions, EventCallbacks, JwtCallbackParams } from "./callbacks.js"
import type { CookiesOptions, PagesOptions, Theme } from "./cookies.js"
import type { FlowDefinition } from "./flow.js"
import type { FlowStore } from "./flow-store.js"
import type { Inspectors } from "./inspection.js"
import type { LoggerInstance } from "./logger.js"
import type { RateLimitRequest, RateLimitRule, RateLimitRuleName } from "./rate-limit.js"
import type { RouteTable } from "./route.js"
import type { ServerState } from "./server-state.js"
import type { Language } from "../messages/text.js"

/** A resolved provider of one `type`, with the config shape of that type. */
export interface ResolvedProviderOf<T extends ProviderConfig["type"], C extends ProviderConfig> {
  readonly id: string
  readonly name: string
  readonly type: T
  readonly style?: Readonly<Record<string, string | undefined>>
  /** The provider object as configured (preset merged with user options, env applied). */
  readonly config: C
}

/**
 * A provider as the runtime holds it: a union that narrows on `type`, so `provider.type === "oidc"`
 * makes `provider.config` an `OAuthConfig` without a cast.
 */
export type ResolvedProvider =
  | ResolvedProviderOf<"oauth", Extract<ProviderConfig, { type: "oauth" | "oidc" }>>
  | ResolvedProviderOf<"oidc", Extract<ProviderConfig, { type: "oauth" | "oidc" }>>
  | ResolvedProviderOf<"credentials", Extract<ProviderConfig, { type: "credentials" }>>
  | ResolvedProviderOf<"email", Extract<ProviderConfig, { type: "email" }>>
  | ResolvedProviderOf<"webauthn", Extract<ProviderConfig, { type: "webauthn" }>>

export interface ResolvedCallbacks {
  signIn: NonNullable<CallbacksOptions["signIn"]>
  redirect: NonNullable<CallbacksOptions["redirect"]>
  session: NonNullable<CallbacksOptions["session"]>
  /**
   * The `jwt` callback as it is called: `user` only at sign-in, although Auth.js' parameter type (the
   * public one) promises it always. Method syntax: the app's callback is accepted for it as it is.
   */
  jwt(params: Omit<JwtCallbackParams, "user"> & { user?: JwtCallbackParams["user"] }): Awaitable<JWT | null>
}

export interface ResolvedConfig {
  readonly basePath: string
  readonly secrets: readonly string[]
  readonly providers: ReadonlyMap<string, ResolvedProvider>
  readonly session: {
    readonly strategy: "jwt" | "database"
    readonly maxAge: number
    readonly updateAge: number
    readonly generateSessionToken: () => string
    /** Milliseconds a user's "not before" moment is cached. */
    readonly revocationCacheMs: number
    /** Milliseconds between two writes of a database session's "last seen" (per instance). */
    readonly lastSeenMs: number
  }
  readonly jwt: {
    readonly maxAge: number
    readonly encode?: NonNullable<AuthConfig["jwt"]>["encode"]
    readonly decode?: NonNullable<AuthConfig["jwt"]>["decode"]
  }
  readonly pages: Readonly<PagesOptions>
  /** The languages of the built-in pages and emails, and `pages.locale`'s (runtime/http/language.ts). */
  readonly languages: ResolvedLanguages
  readonly callbacks: Readonly<ResolvedCallbacks>
  readonly customRedirect: boolean
  /** True when the app gave its own `session` callback. */
  readonly customSession: boolean
  /** Whether the app gave its own `jwt` callback (the built-in one hands the token back untouched). */
  readonly customJwt: boolean
  readonly events: Readonly<EventCallbacks>
  readonly logger: LoggerInstance
  readonly theme: Readonly<Required<Theme>>
  readonly cookies: { readonly secure: CookiesOptions; readonly plain: CookiesOptions }
  readonly useSecureCookies: boolean | undefined
  /** True when some request can be served: a pinned URL, or hosts that may be trusted. */
  readonly trustHost: boolean
  /** How each request's origin is decided (`url`/`AUTH_URL`, `trustHost`). */
  readonly origin: OriginPolicy
  readonly skipCSRFCheck: boolean
  readonly raw: boolean
  readonly redirectProxyUrl: string | undefined
  readonly experimental: Readonly<{ enableWebAuthn: boolean }>
  readonly flowStore: FlowStore
  /** Single-use claims, attempt counts and revocations (one memory port per config by default). */
  readonly serverState: ServerState
  /** `session.providerTokens`: how provider tokens are kept and refreshed, or null when they are not. */
  readonly providerTokens: ResolvedProviderTokens | null
  /** The rate limits in force, or null when they are off (docs/security.md "Limits"). */
  readonly rateLimit: ResolvedRateLimit | null
  /** Flows by id: the built-ins, replaced or extended by `config.flows`. */
  readonly flows: ReadonlyMap<string, FlowDefinition>
  readonly flowTimeout: number
  /** The routing table: the runtime's rows, `config.routes`, and each provider's flow rows. */
  readonly routing: RouteTable
  /** The inspection stream's receivers (none unless `inspect` is configured). */
  readonly inspectors: Inspectors
  readonly adapter: Adapter | undefined
  /** Logout at the provider: RP-initiated and back-channel (docs/sessions.md "Logout at the provider"). */
  readonly logout: ResolvedLogout
  /** Account management options (`unlinkAccount`'s guard). */
  readonly accounts: Readonly<NonNullable<AuthConfig["accounts"]>>
  /** The second-factor pages' options, defaults applied. */
  readonly factors: { readonly freshFor: number; readonly issuer: string | undefined }
  /** The configuration error every request answers with, or null. Logged once at resolve time. */
  readonly configError: AuthError | null
}

/** How a config decides the origin of a request; resolved once with the config. */
export interface OriginPolicy {
  /** The pinned public URL: its origin, and its path when that is the base path of the generated URLs. */
  readonly pinned: { readonly origin: string; readonly path: string | undefined } | undefined
  /** `true`: any host; a list: only these hosts (or `*.domain` patterns, or origins); `false`: none. */
  readonly trust: boolean | readonly string[]
}

/** `rateLimit` resolved: the rules in force (off ones left out), the hooks, the fail-closed set. */
export interface ResolvedRateLimit {
  readonly rules: ReadonlyMap<RateLimitRuleName, RateLimitRule>
  readonly key: ((request: RateLimitRequest) => string | undefined) | undefined
  readonly skip: ((request: RateLimitRequest) => boolean) | undefined
  readonly failClosed: ReadonlySet<RateLimitRuleName>
}

/** `logout` resolved (docs/sessions.md "Logout at the provider"). */
export interface ResolvedLogout {
  readonly provider: string | undefined
  readonly postLogoutRedirectUri: string | undefined
  readonly keepIdToken: boolean
  /** Milliseconds a logout token's `iat` may lie in the past. */
  readonly maxTokenAgeMs: number
  /** Whether the built-in sign-out page offers "Sign out of <provider> too". */
  readonly offerOnSignOutPage: boolean
}

export interface ResolvedProviderTokens {
  /** Milliseconds before `expires_at` from which an access token is refreshed. */
  readonly refreshMarginMs: number
  /** Milliseconds a request waits for another instance's refresh; undefined: the provider's timeout + 5 s. */
  readonly refreshWaitMs: number | undefined
}

/** The config's languages, resolved once (runtime/http/language.ts). */
export interface ResolvedLanguages {
  /** By lower-case tag. */
  readonly byTag: ReadonlyMap<string, Language>
  /** `pages.locale`'s language: every page is drawn in it and none depends on `Accept-Language`. */
  readonly fixed: Language | undefined
  /** English (the config's `en` when it gives one): what a request that names no known language gets. */
  readonly fallback: Language
  /** Languages already chosen per `Accept-Language` value (bounded). */
  readonly chosen: {
    get(acceptLanguage: string): Language | undefined
    keep(acceptLanguage: string, language: Language): Language
  }
}
