/**
 * Redeeming the authorization code (RFC 6749 §4.1.3, OpenID Connect Core §3.1.3): the token request and
 * the checks of its answer. oauth4webapi makes a provider's first token request; later requests to the
 * same token endpoint are sent in the very form that one had (its headers, its body's fields in order,
 * with this sign-in's code, redirect URI and PKCE verifier) straight on our own HTTP client (oauth-wire.ts), and the
 * common answer is judged by `acceptTokenAnswer` (oauth-token-check.ts) without a web `Response`. Every
 * other answer, a provider with its own fetch, an application that replaced `fetch`, and a provider
 * that mends its answers (`token.conform`) go through oauth4webapi as before.
 */
import * as o from "oauth4webapi"
import { AuthError, CallbackRouteError, InvalidCheck, OAuthCallbackError } from "../../errors.js"
import type { OAuthConfig } from "../../providers/oauth-types.js"
import { type ProviderAnswer, type ProviderRequest, providerAnswer, providerRequest } from "./oauth-http.js"
import { answerResponse } from "./oauth-response.js"
import { DEFAULT_TIMEOUT_MS, clientOf, httpOptions, onOwnClient } from "./oauth-server.js"
import { type Redeemed, type TokenExpectations, acceptTokenAnswer } from "./oauth-token-check.js"
import { wireRequest } from "./oauth-wire.js"

/** One sign-in's code exchange: the provider, its server, the validated callback and the kept checks. */
export interface CodeExchange {
  readonly provider: OAuthConfig
  readonly server: o.AuthorizationServer
  /**
   * The callback's single `code` when the callback passed every check of `o.validateAuthResponse` at
   * once (oauth.ts); undefined sends the exchange through `callback` and oauth4webapi.
   */
  readonly code: string | undefined
  /** The callback's parameters as `o.validateAuthResponse` returns them (made when oauth4webapi needs them). */
  readonly callback: () => URLSearchParams
  readonly redirectUri: string
  readonly codeVerifier: string
  readonly nonce: string | null
}

/** The body fields that change per sign-in (names that need no encoding); the others (grant type, client credentials) are the provider's. */
const PER_SIGN_IN = new Set(["code", "redirect_uri", "code_verifier"])

/** What a provider's token request is made from: the `token_endpoint` and the provider's client settings. */
interface FormSource {
  readonly endpoint: string | undefined
  readonly clientId: string | undefined
  readonly clientSecret: string | undefined
  readonly authMethod: string | undefined
  readonly insecure: boolean | undefined
}

/** A provider's token request as oauth4webapi made it. */
interface RequestForm {
  /** What it was made from: a form made from anything else is not used. */
  readonly from: FormSource
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  /** The body's fields in order, name and value form-encoded; the value null where each sign-in puts its own. */
  readonly fields: readonly (readonly [string, string | null])[]
  /** The last redirect URI sent and its form encoding (a provider's sign-ins share one). */
  redirect: readonly [string, string]
}

const forms = new WeakMap<OAuthConfig, RequestForm>()

function sourceOf(provider: OAuthConfig, endpoint: string | undefined): FormSource {
  const { clientId, clientSecret, client, allowInsecureRequests } = provider
  return { endpoint, clientId, clientSecret, authMethod: client?.token_endpoint_auth_method, insecure: allowInsecureRequests }
}

/** Whether `form` was made from this provider's current settings and this endpoint. */
function madeFrom(form: RequestForm, provider: OAuthConfig, endpoint: string | undefined): boolean {
  const { from } = form
  return (
    from.endpoint === endpoint &&
    from.clientId === provider.clientId &&
    from.clientSecret === provider.clientSecret &&
    from.authMethod === provider.client?.token_endpoint_auth_method &&
    from.insecure === provider.allowInsecureRequests
  )
}

/** `value` as application/x-www-form-urlencoded writes it (URLSearchParams' serializer). */
function formEncoded(value: string): string {
  // the characters the serializer leaves as they are: a code or verifier is usually only these
  return UNESCAPED.test(value) ? value : new URLSearchParams({ v: value }).toString().slice(2)
}

const UNESCAPED = /^[\w.*-]*$/

function remember(provider: OAuthConfig, from: FormSource, href: string, init: ProviderRequest): void {
  const { body } = init
  if (!(body instanceof URLSearchParams)) return
  const fields = [...body].map(([key, value]) => [formEncoded(key), PER_SIGN_IN.has(key) ? null : formEncoded(value)] as const)
  forms.set(provider, { from, url: new URL(href), headers: { ...init.headers }, fields, redirect: ["", ""] })
}

/** The token request's body: the kept fields, with this sign-in's code, redirect URI and verifier (as URLSearchParams writes them). */
function bodyOf(form: RequestForm, exchange: CodeExchange, code: string): string {
  const { redirectUri } = exchange
  if (form.redirect[0] !== redirectUri) form.redirect = [redirectUri, formEncoded(redirectUri)]
  let body = ""
  for (const [key, value] of form.fields) {
    const own =
      value ?? (key === "code" ? formEncoded(code) : key === "redirect_uri" ? form.redirect[1] : formEncoded(exchange.codeVerifier))
    body += body === "" ? `${key}=${own}` : `&${key}=${own}`
  }
  return body
}

/** The answer as oauth4webapi judges it (an answer `acceptTokenAnswer` declined, or any answer off our client). */
async function judged(exchange: CodeExchange, client: o.Client, response: Response): Promise<Redeemed> {
  const { provider, server } = exchange
  const conform = conformOf(provider)
  // a provider whose token answer strays from the spec mends it first (Auth.js' `token.conform`, e.g. Twitch)
  const mended = conform ? ((await conform(response.clone())) ?? response) : response
  const tokens = await o.processAuthorizationCodeResponse(server, client, mended, {
    expectedNonce: exchange.nonce ?? o.expectNoNonce,
    requireIdToken: provider.type === "oidc",
  })
  return { tokens, claims: o.getValidatedIdTokenClaims(tokens) }
}

const conformOf = (provider: OAuthConfig) => (typeof provider.token === "object" ? provider.token.conform : undefined)

function expectationsOf(exchange: CodeExchange, client: o.Client): TokenExpectations {
  return { server: exchange.server, client, nonce: exchange.nonce, requireIdToken: exchange.provider.type === "oidc" }
}

/**
 * Sends the token request and checks the answer: the tokens and the ID token's claims, or oauth4webapi's
 * error for an answer it refuses. A provider's later sign-ins go out in its kept form and are judged
 * when the answer arrives, without a promise between (one for the request, one for its judgement).
 * @example const { tokens, claims } = await redeemCode({ provider, server, code, callback, redirectUri, codeVerifier, nonce })
 */
export function redeemCode(exchange: CodeExchange): Promise<Redeemed> {
  const { provider, server, code } = exchange
  const own = conformOf(provider) === undefined && onOwnClient(provider)
  const form = own ? forms.get(provider) : undefined
  if (!form || !code || !madeFrom(form, provider, server.token_endpoint)) return viaLibrary(exchange, own)
  const { client } = clientOf(provider)
  const request = { method: "POST", headers: form.headers, body: bodyOf(form, exchange, code), timeoutMs: timeoutOf(provider) }
  return wireRequest(form.url, request).then((wire) => {
    const answer = providerAnswer(wire)
    return acceptTokenAnswer(answer, expectationsOf(exchange, client)) ?? judged(exchange, client, answerResponse(answer))
  })
}

const timeoutOf = (provider: OAuthConfig) => provider.timeout ?? DEFAULT_TIMEOUT_MS

/** The token request as oauth4webapi makes it (on our client when `own`, its form then kept for the provider's next sign-ins). */
async function viaLibrary(exchange: CodeExchange, own: boolean): Promise<Redeemed> {
  const { provider, server } = exchange
  const { client, auth } = clientOf(provider)
  const from = sourceOf(provider, server.token_endpoint)
  const http = httpOptions(provider, server.token_endpoint ? new URL(server.token_endpoint) : undefined)
  let first: ProviderAnswer | undefined
  // the first request on our client: oauth4webapi's, kept as the form of the next ones
  const send = async (href: string, init: ProviderRequest): Promise<Response> => {
    first = await providerRequest(href, init, timeoutOf(provider))
    remember(provider, from, href, init)
    return answerResponse(first)
  }
  const { redirectUri, codeVerifier } = exchange
  const response = await o.authorizationCodeGrantRequest(server, client, auth, exchange.callback(), redirectUri, codeVerifier, {
    ...http,
    ...(own ? { [o.customFetch]: send } : {}),
  })
  return (first && acceptTokenAnswer(first, expectationsOf(exchange, client))) ?? judged(exchange, client, response)
}

/**
 * A callback's failure as an authchart error: oauth4webapi's check failures are `InvalidCheck`, an error
 * the provider answered is `OAuthCallbackError` (authorization) or `CallbackRouteError` (token), the rest
 * `CallbackRouteError`.
 * @example throw asAuthError(err, provider.id)
 */
export function asAuthError(err: unknown, provider: string): AuthError {
  if (err instanceof AuthError) return err
  if (err instanceof o.AuthorizationResponseError) {
    return new OAuthCallbackError("The provider returned an error.", { err, provider, error: err.error })
  }
  if (err instanceof o.ResponseBodyError) {
    return new CallbackRouteError("The token endpoint refused the code.", { err, provider, error: err.error, status: err.status })
  }
  const code = err instanceof Error && "code" in err ? err.code : undefined
  if (code === o.JWT_CLAIM_COMPARISON || code === o.JSON_ATTRIBUTE_COMPARISON || code === o.INVALID_RESPONSE) {
    return new InvalidCheck("The provider's response failed a check.", { err, provider })
  }
  return new CallbackRouteError("The OAuth callback failed.", { err, provider })
}
