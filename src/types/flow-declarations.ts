/**
 * What a flow declares about itself, so the shared runtime need not know it by provider type: its block
 * on the sign-in page, the limit on each of its routes, the origins its forms post to, how it links an
 * identity to an account, and what it requires. Every declaration is optional; a flow without one gets
 * the declaration of the built-in flow that serves its provider's `type`, if any.
 */
import type { FlowServices } from "./flow.js"
import type { RequestContext } from "./request.js"
import type { ResolvedConfig, ResolvedProvider } from "./resolved.js"
import type { Identity } from "../machines/types.js"
import type { Language } from "../messages/text.js"
import type { SafeHtml } from "./html.js"
import type { RateLimitRuleName } from "./rate-limit.js"

/**
 * A configured provider as a flow's declarations see it: id, name, `type` and its options as configured.
 * @example const label = (provider: DeclaredProvider) => `Sign in with ${provider.name}`
 */
export type DeclaredProvider = ResolvedProvider

/**
 * Where a provider's sign-in block posts: absolute URLs of the provider's routes.
 * @example const form = (urls: SignInBlockUrls) => html`<form method="POST" action="${urls.callback}">…</form>`
 */
export interface SignInBlockUrls {
  /** `{origin}{basePath}`, where the auth routes live. */
  readonly authUrl: string
  /** `{authUrl}/signin/{id}`. */
  readonly signinUrl: string
  /** `{authUrl}/callback/{id}`. */
  readonly callbackUrl: string
}

/**
 * What a block is drawn with, once the whole page is known.
 * @example const draw = (page: SignInBlockPage) => html`<input type="hidden" name="csrfToken" value="${page.csrfToken}">`
 */
export interface SignInBlockPage {
  /** The hidden `csrfToken` (and `callbackUrl`) fields every form on the page carries. */
  readonly hidden: SafeHtml
  /**
   * A field label as the page shows it: with the block's `method` ("Email for a sign-in code") when
   * another form on the page uses the same label.
   */
  readonly label: (text: string) => string
  /** The block's place on the page (its button colours are the class `provider-button-<index>`). */
  readonly index: number
  /** The `?email=` prefill of the page, for a form that asks for an address. */
  readonly email?: string
  /** An image's URL when the page may show it (http(s), or a path of the app's own), else undefined. */
  readonly imageUrl: (url: string | undefined) => string | undefined
}

/**
 * A flow's block on the built-in sign-in page for one of its providers.
 * @example
 * ```ts
 * const block: SignInBlock = {
 *   labels: ["Code"],
 *   method: "an invitation",
 *   render: ({ hidden, label }) => html`<div class="provider"><form action="…" method="POST">${hidden}<label>${label("Code")}</label><input name="code"><button type="submit">Sign in</button></form></div>`,
 * }
 * ```
 */
export interface SignInBlock {
  /** The labels of its fields, so that a label several forms share is told apart by `method`. */
  readonly labels?: readonly string[]
  /** How it signs in, added to a shared label: "a sign-in link", "your passkey". Default: the provider's name. */
  readonly method?: string
  /** A lone button (OAuth): consecutive buttons share a group, a form is a group of its own. */
  readonly button?: boolean
  /** Images on other origins (a logo) the page's policy must allow. */
  readonly images?: readonly (string | undefined)[]
  /** Scripts the page loads (with its nonce), and the origins they fetch from. */
  readonly scripts?: readonly string[]
  readonly connect?: readonly string[]
  /** The block's markup: one `<div class="provider">` with its form (`html` escapes what it interpolates). */
  readonly render: (page: SignInBlockPage) => SafeHtml | null
}

/**
 * The limit on one route of a flow: the named rules (`rateLimit.rules` tunes or turns each off) a request
 * on it counts, beside the `client` rule every request counts.
 * @example
 * ```ts
 * const limit: RouteLimit = { rules: ["emailClient", "emailAddress"], account: (provider, body) => normalizeEmail(String(body?.email)) }
 * ```
 */
export interface RouteLimit {
  readonly rules: readonly RateLimitRuleName[]
  /**
   * The account the per-account rules (`emailAddress`, `passwordAccount`, …) count, as the flow will
   * resolve it from the request body; undefined (or a throw) when the body names none it would accept,
   * and only the per-client rules count then.
   */
  readonly account?: (provider: DeclaredProvider, body: Readonly<Record<string, unknown>> | undefined) => string | undefined
}

/**
 * How a flow links an identity to an account with an adapter: called by the sign-in tail's `linking`
 * state (only when an adapter is configured), it answers the identity to sign in (its `user` as stored).
 * It gets the request's {@link FlowServices} (`services.adapter` is there).
 * @example const link: IdentityLinker = async (services, identity) => identity // no linking: the identity as the flow found it
 */
export type IdentityLinker = (services: FlowServices, identity: Identity) => Identity | Promise<Identity>

/**
 * Linking as a built-in flow does it: `"oauth"` (an account per provider account, `OAuthAccountNotLinked`),
 * `"email"` (the user of the address, created when new, `emailVerified` refreshed), `"credentials"` (the
 * user `authorize` returned, created under database sessions), `"webauthn"` (a passkey's account).
 * @example const inviteFlow = defineFlow({ id: "invite", machine, routes, link: "email" satisfies BuiltInLinking })
 */
export type BuiltInLinking = "oauth" | "email" | "credentials" | "webauthn"

/**
 * What a flow requires, checked at start-up: a missing requirement is the configuration error every request answers with.
 * @example const requires: FlowRequirements = { adapterMethods: ["getUserByEmail", "createUser"], packages: () => ["nodemailer"] }
 */
export interface FlowRequirements {
  /**
   * An adapter: the message of the `MissingAdapter` error when none is configured, or a function that
   * answers it for a config (undefined: met).
   */
  readonly adapter?: string | ((config: Omit<ResolvedConfig, "configError">) => string | undefined)
  /** Adapter methods its effects call, checked when an adapter is configured (`MissingAdapterMethods`). */
  readonly adapterMethods?: readonly string[]
  /** Optional packages its effects load (`MissingDependency` naming them), for all its providers or per provider. */
  readonly packages?: readonly string[] | ((provider: DeclaredProvider) => readonly string[])
  /** An `experimental` switch the flow needs on (`ExperimentalFeatureNotEnabled`), checked before its adapter. */
  readonly experimental?: "enableWebAuthn"
}

/**
 * The optional declarations of a flow (see each): what the shared runtime asks a flow instead of switching on its provider's type.
 * @example const declared: FlowDeclarations = { link: "email", requires: { adapterMethods: ["getUserByEmail"] } }
 */
export interface FlowDeclarations {
  /** Its block on the built-in sign-in page, per provider, in the page's language; null: no block. */
  readonly signInBlock?: (provider: DeclaredProvider, urls: SignInBlockUrls, language: Language) => SignInBlock | null
  /**
   * The origins its providers' forms lead to, besides the app's own, for the CSP `form-action` of the
   * built-in pages (OAuth: the authorization servers, where `POST /signin/<id>` redirects). Called with
   * the providers it serves (none is possible), once per page.
   */
  readonly formTargets?: (ctx: RequestContext, providers: readonly DeclaredProvider[]) => Iterable<string>
  /**
   * How it links an identity to an account when an adapter is configured: as a built-in flow does (its
   * name), or a function of its own. Without one and without a built-in flow of its providers' `type`, the
   * identity is signed in as the flow found it.
   */
  readonly link?: BuiltInLinking | IdentityLinker
  /** What it requires, checked at start-up. */
  readonly requires?: FlowRequirements
}
