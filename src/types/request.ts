/**
 * A request as the runtime serves it: the parsed request, the context handlers and effects receive,
 * and what a handler answers. Types only.
 */
import type { CookieJar, CookiesOptions, OutCookie } from "./cookies.js"
import type { ResolvedConfig, ResolvedProvider } from "./resolved.js"

/** An action under the base path, the first path segment after it (`signin`, `callback`, `session`, …). */
export type AuthAction =
  | "providers"
  | "session"
  | "csrf"
  | "signin"
  | "signout"
  | "callback"
  | "verify-request"
  | "error"
  | "webauthn-options"

/** Reads request headers by lower-case name. */
export interface HeaderReader {
  get(name: string): string | null
}

/** A request as the runtime sees it, whichever integration it came from. */
export interface IncomingRequest {
  readonly method: string
  /** Absolute URL; its origin is the one the app is served on. */
  readonly url: URL
  readonly headers: HeaderReader
  readonly cookies: CookieJar
  /** The parsed urlencoded or JSON body of a POST, else undefined. */
  readonly body: Readonly<Record<string, unknown>> | undefined
  /** All request headers, for building a web `Request` when user code asks for one. */
  headerEntries(): Iterable<[string, string]>
  /**
   * The client's IP as the integration determined it (Express: `req.ip`, so `trust proxy` decides), for
   * rate limits. Never read from `X-Forwarded-For` here.
   */
  readonly clientIp?: string
}

/**
 * The request being served, with the resolved config and what follows from both (origin, base path,
 * cookie names, clock): what a route handler and (as `EffectContext`) an effect receive.
 * @example const providerId = ctx.providerId // "email-code" on /callback/email-code
 */
export interface RequestContext {
  readonly config: ResolvedConfig
  readonly req: IncomingRequest
  readonly action: AuthAction
  readonly providerId: string | undefined
  readonly provider: ResolvedProvider | undefined
  readonly origin: string
  readonly basePath: string
  /** `origin + basePath`: where the auth routes live. */
  readonly authUrl: string
  readonly secure: boolean
  readonly cookies: CookiesOptions
  /** Milliseconds since the epoch, read once per request. */
  readonly now: number
}

/** What a route handler returns: the internal response, and the error it ended with (for `raw`). */
export interface ResponseInternal {
  status?: number
  headers?: Record<string, string>
  body?: unknown
  redirect?: string
  cookies?: OutCookie[]
}

/**
 * A handled request: the response to write, and the error it ended with (for `raw`).
 * @example const answer = async (ctx: RequestContext): Promise<Handled> => ({ response: { status: 204 } })
 */
export interface Handled {
  readonly response: ResponseInternal
  readonly error?: unknown
}
