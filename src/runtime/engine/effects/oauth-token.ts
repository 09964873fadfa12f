/**
 * Redeeming the authorization code (RFC 6749 §4.1.3, OpenID Connect Core §3.1.3) with oauth4webapi:
 * `authorizationCodeGrantRequest` sends the token request, `processAuthorizationCodeResponse` checks the
 * answer and its ID token. On top, as Auth.js: a provider whose token answer strays from the spec mends
 * it first (`token.conform`).
 */
import * as o from "oauth4webapi"
import { AuthError, CallbackRouteError, InvalidCheck, OAuthCallbackError } from "../../../errors.js"
import type { OAuthConfig } from "../../../providers/oauth-types.js"
import { clientOf, httpOptions } from "../../oauth/server.js"

/** One sign-in's code exchange: the provider, its server, the validated callback and the kept checks. */
export interface CodeExchange {
  readonly provider: OAuthConfig
  readonly server: o.AuthorizationServer
  /** The callback's parameters as `o.validateAuthResponse` returns them. */
  readonly callback: URLSearchParams
  readonly redirectUri: string
  readonly codeVerifier: string
  readonly nonce: string | null
}

/** The token endpoint's answer and the claims of its ID token, as oauth4webapi returns them. */
export interface Redeemed {
  readonly tokens: o.TokenEndpointResponse
  readonly claims: o.IDToken | undefined
}

/**
 * Sends the token request and checks the answer: the tokens and the ID token's claims, or oauth4webapi's
 * error for an answer it refuses.
 * @example const { tokens, claims } = await redeemCode({ provider, server, callback, redirectUri, codeVerifier, nonce })
 */
export async function redeemCode(exchange: CodeExchange): Promise<Redeemed> {
  const { provider, server, callback, redirectUri, codeVerifier } = exchange
  const { client, auth } = clientOf(provider)
  const http = httpOptions(provider, server.token_endpoint ? new URL(server.token_endpoint) : undefined)
  const response = await o.authorizationCodeGrantRequest(server, client, auth, callback, redirectUri, codeVerifier, http)
  const conform = typeof provider.token === "object" ? provider.token.conform : undefined
  // a provider whose token answer strays from the spec mends it first (Auth.js' `token.conform`, e.g. Twitch)
  const mended = conform ? ((await conform(response.clone())) ?? response) : response
  const tokens = await o.processAuthorizationCodeResponse(server, client, mended, {
    expectedNonce: exchange.nonce ?? o.expectNoNonce,
    requireIdToken: provider.type === "oidc",
  })
  return { tokens, claims: o.getValidatedIdTokenClaims(tokens) }
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
