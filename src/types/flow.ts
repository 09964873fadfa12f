/**
 * The flow contract: a flow's request rows, its definition as the runtime uses it, and what its pages
 * and effects are told. Types only; `defineFlow` (the runtime) builds a definition from them.
 */
import type { AnyActorLogic, AnyStateMachine } from "xstate"
import type { Adapter, AdapterUser } from "../adapters/types.js"
import type { GateResult } from "../machines/types.js"
import type { SafeAdapter } from "./adapter.js"
import type { CallbacksOptions } from "./callbacks.js"
import type { CookieOption, Theme } from "./cookies.js"
import type { Language } from "../messages/text.js"
import type { FlowStore } from "./flow-store.js"
import type { LoggerInstance } from "./logger.js"
import type { ResolvedProvider } from "./resolved.js"
import type { ServerState } from "./server-state.js"
import type { AuthAction, Handled, RequestContext } from "./request.js"
import type { FlowDeclarations, RouteLimit } from "./flow-declarations.js"

/**
 * One request row of a flow: which request (`<method> <basePath>/<action>/<provider>`) drives which
 * machine event. The runtime adds it to its routing table for every provider served by the flow; an
 * `action` that is not one of Auth.js' becomes a new endpoint.
 *
 * @example
 * ```ts
 * import type { FlowRoute } from "authchart/flow"
 * const submitCode: FlowRoute = { method: "POST", action: "callback", step: "code", event: "CODE", csrf: true, params: ["code"] }
 * ```
 */
export interface FlowRoute {
  readonly method: "GET" | "POST"
  readonly action: AuthAction | (string & {})
  /** The machine event this request becomes. Its `params` come from `params`. */
  readonly event: string
  /** True when this request may start a new flow (otherwise it resumes a persisted one). */
  readonly start?: boolean
  /** Require the double-submit CSRF token (the body's `csrfToken`). */
  readonly csrf?: boolean
  /**
   * Matches only requests whose `step` (body or query) equals this; rows without `step` match only
   * requests without one. Lets one flow start and resume on the same action.
   */
  readonly step?: string
  /**
   * Request fields that become the event's `params` (the only request data effects see): the whole
   * body, the query, or named fields (body first, then query). Default: none.
   */
  readonly params?: "body" | "query" | readonly string[]
  /** The rate limit on this route (see `RouteLimit`); without one only the `client` rule counts it. */
  readonly limit?: RouteLimit
}

/**
 * A request row of a flow answered without running its machine, e.g. `POST /signin/<credentials>`,
 * which shows the sign-in page as in Auth.js ({@link showSignInPage}).
 *
 * @example
 * ```ts
 * import { showSignInPage, type FlowAnswerRoute } from "authchart/flow"
 * const row: FlowAnswerRoute = { method: "POST", action: "signin", csrf: true, answer: showSignInPage }
 * ```
 */
export interface FlowAnswerRoute {
  readonly method: "GET" | "POST"
  readonly action: AuthAction | (string & {})
  readonly csrf?: boolean
  readonly answer: (ctx: RequestContext) => Promise<Handled>
}

/**
 * What an effect receives besides its input: the request it runs for (config, provider, origin,
 * cookies, clock) and the callback URL of the flow.
 *
 * @example
 * ```ts
 * import { effect, type EffectContext } from "authchart/flow"
 * const providerName = (ctx: EffectContext) => ctx.provider?.name
 * ```
 */
export interface EffectContext extends RequestContext {
  readonly callbackUrl: string
}

/**
 * What an effect's request offers it, besides its input: the provider it serves, the request's clock,
 * origin and URL, and the few services a sign-in step needs (the server-state port, the adapter, the
 * app's secrets for sealing, the `signIn` callback, the logger). Request hooks (`intercept`,
 * `cookieOptions`) get it too; effects get {@link FlowServices}, which adds where the flow ends.
 *
 * @example
 * ```ts
 * import type { RequestServices } from "authchart/flow"
 * const isCode = (services: RequestServices) => services.provider.config.type === "email"
 * ```
 */
export interface RequestServices {
  /** The provider the request names: its id, name, type and configuration as resolved. */
  readonly provider: ResolvedProvider
  /** Every provider of the configuration by id (a flow serving several may tell them apart). */
  readonly providers: ReadonlyMap<string, ResolvedProvider>
  /** Milliseconds since the epoch, read once per request. */
  readonly now: number
  /** The origin every generated URL uses (`AUTH_URL`, or the trusted request host). */
  readonly origin: string
  /** `origin` and the base path: where the auth routes live (`https://app.example/auth`). */
  readonly authUrl: string
  /** The request's URL. */
  readonly url: URL
  /** The request's language (`pages.locale`, else its `Accept-Language`, else English), for the texts a flow answers or mails. */
  readonly language: Language
  /**
   * The request as a web `Request` with its body as JSON, for user callbacks that take one
   * (`authorize(credentials, request)`); built on first use.
   */
  readonly request: Request
  /** Single-use claims, counts in a window and small records, shared by every instance (the config's `serverState`). */
  readonly serverState: ServerState
  /** The config's adapter, every call wrapped (a throw becomes an `AdapterError`), or undefined. */
  readonly adapter: SafeAdapter | undefined
  /** The adapter exactly as configured, for user callbacks documented to receive it (`getUserInfo`). */
  readonly configuredAdapter: Adapter | undefined
  /** The flow store's server-side single-use records (`RedisFlowStore`), when it keeps them. */
  readonly tokens: FlowStore["tokens"]
  /** The config's redirect proxy (`redirectProxyUrl` / `AUTH_REDIRECT_PROXY_URL`), if any. */
  readonly redirectProxyUrl: string | undefined
  readonly theme: Readonly<Required<Theme>>
  readonly logger: LoggerInstance
  /** The app's secrets, newest first (Auth.js hashes its email tokens with the newest). */
  readonly secrets: readonly [newest: string, ...older: string[]]
  /**
   * Seals `claims` for `ttlSeconds` under a key derived from the newest secret for `purpose` (a JWE):
   * anyone can carry the result, only this app can open it, nobody can change it.
   */
  seal(claims: Record<string, unknown>, purpose: string, ttlSeconds: number): Promise<string>
  /** Opens what {@link RequestServices.seal} made for `purpose` with any of the secrets; null when it cannot (forged, expired, another purpose). */
  unseal(token: string, purpose: string): Promise<Record<string, unknown> | null>
  /**
   * Runs the `signIn` callback before the flow acts (the email flows ask before they send): true goes
   * on; false or a throw is `AccessDenied`; a string is a redirect (through the `redirect` callback).
   */
  askSignIn(attempt: SignInAttempt): Promise<GateResult>
  /** The user of the request's current session (through the adapter), or null. */
  currentUser(): Promise<AdapterUser | null>
}

/**
 * What an effect receives besides its input: the {@link RequestServices} of its request, and the URL the
 * flow ends on.
 *
 * @example
 * ```ts
 * import { effect } from "authchart/flow"
 * const sendCode = effect(async (services, input: { email: string }) => mailer.send(input.email, services.callbackUrl))
 * ```
 */
export interface FlowServices extends RequestServices {
  /** Where the sign-in goes once it succeeds (the `callbackUrl` the flow started with, checked). */
  readonly callbackUrl: string
}

/**
 * What the `signIn` callback is asked with (`askSignIn`).
 * @example const attempt: SignInAttempt = { user: { email }, account: null, email: { verificationRequest: true } }
 */
export type SignInAttempt = Parameters<NonNullable<CallbacksOptions["signIn"]>>[0]

/**
 * A flow as the runtime uses it: what {@link defineFlow} returns.
 * @example const config = { flows: [extendFlow(credentialsFlow, [terms])] satisfies FlowDefinition[], providers }
 */
export interface FlowDefinition extends FlowDeclarations {
  /** Unique flow id; a config flow with a built-in id replaces the built-in. */
  readonly id: string
  /**
   * Provider `type`s this flow serves when a provider names no `flow` of its own (Auth.js-style
   * provider objects, e.g. `{ type: "oidc", … }`). Default: none.
   */
  readonly providerTypes?: readonly string[]
  readonly machine: AnyStateMachine
  /** The requests that drive the machine (each a row of the runtime's routing table, per provider). */
  readonly routes: readonly FlowRoute[]
  /** Requests of the flow's providers answered without the machine. */
  readonly answers?: readonly FlowAnswerRoute[]
  /**
   * Effects the machine invokes by name, provided once per flow. Write them with
   * `effect((services, input) => …)` to receive the request's {@link FlowServices}. The sign-in tail's
   * effects are always provided.
   */
  readonly actors?: Readonly<Record<string, AnyActorLogic>>
  /** Seconds a resting flow stays resumable. Default 900. */
  readonly ttl: number
  /**
   * Runs before a resumed request restores its flow; an answer here replaces the flow step (the OAuth
   * redirect proxy forwards callbacks this way). A promise only when it must wait.
   */
  readonly intercept?: (services: RequestServices) => Handled | undefined | Promise<Handled | undefined>
  /**
   * Renderers of the pages the machine rests on (`{ type: "page", page: <name> }` replies), e.g. the
   * pages of extra steps. They get the CSRF token, the URL their form posts to and the response's CSP
   * nonce, and answer a whole document (`renderStepPage` draws the themed card). A page's form posts its
   * answer: a `GET` while the flow rests on a page is a reload and shows the page again without running
   * the machine (`defineFlow` adds a `GET` callback row when the flow has none).
   */
  readonly pages?: Readonly<Record<string, (props: FlowPageProps) => string>>
  /** Per-request overrides of the flow cookie's options (e.g. `SameSite=None` for form_post). */
  readonly cookieOptions?: (services: RequestServices) => Partial<CookieOption["options"]>
  /** Fingerprint of the machine definition: a snapshot from another version is refused. */
  readonly version: string
}

/**
 * What {@link defineFlow} takes: a {@link FlowDefinition} without its fingerprint, `ttl` optional.
 * @example const input: FlowDefinitionInput = { id: "invite", machine, routes, actors: { authorize } }
 */
export interface FlowDefinitionInput extends Omit<FlowDefinition, "ttl" | "version"> {
  readonly ttl?: number
}

/**
 * What the runtime tells the renderer of a page a flow rests on (see `FlowDefinition.pages`).
 * @example
 * ```ts
 * const pages = {
 *   code: (props: FlowPageProps) => renderStepPage(props, { title: "Check your email", fields: `<input name="code" autocomplete="one-time-code">` }),
 * }
 * ```
 */
export interface FlowPageProps {
  /** The step's id (the page's name); a form sends it back as the hidden `step` field. */
  readonly step: string
  /** Where the form posts (`/callback/<provider>`); include hidden `step` and `csrfToken` fields. */
  readonly action: string
  readonly csrfToken: string
  /** The message of the last `retry` verdict. */
  readonly message?: string
  /** Wrong answers so far. */
  readonly attempt: number
  readonly data: Record<string, unknown>
  readonly theme: Theme
  /**
   * The response's Content-Security-Policy nonce. A whole page of your own puts it on its `<style>` and
   * `<script>` elements (`<style nonce="…">`); the policy allows no other inline style or script.
   */
  readonly nonce: string
  /** The sign-in page (with the flow's `callbackUrl`): where "cancel and start over" leads. */
  readonly cancelUrl: string
  /**
   * The language of the request (`pages.locale` or `Accept-Language`): `text(props.language, key)` draws
   * a catalogue's string in it (`authchart/messages`). Absent means English.
   */
  readonly language?: Language
}
