/**
 * One refresh at the provider's token endpoint (RFC 6749 §6, OpenID Connect Core §12) with oauth4webapi:
 * the same authorization server (discovery cached per config), client authentication and bounded HTTP
 * options as sign-in. `invalid_grant` is `RefreshTokenError` (the user must sign in again); every other
 * failure is `AccessTokenUnavailable` and leaves the stored tokens as they were.
 */
import * as o from "oauth4webapi"
import { AccessTokenUnavailable, AuthError, RefreshTokenError } from "../../../errors.js"
import type { OAuthConfig } from "../../../providers/oauth-types.js"
import type { ResolvedConfig } from "../../../types/resolved.js"
import { authorizationServer, clientOf, discoveryCache, httpOptions } from "../../oauth/server.js"
import { type TokenRecord, withoutUndefined } from "./record.js"

/** Refreshes `record` at `provider`; the new record keeps the refresh token when the provider sends none. */
export async function refreshAtProvider(
  config: ResolvedConfig,
  provider: OAuthConfig,
  record: TokenRecord,
  now: number,
): Promise<TokenRecord> {
  const refreshToken = record.refresh_token
  if (!refreshToken) throw new RefreshTokenError("The access token expired and there is no refresh token.", { provider: provider.id })
  let tokens: o.TokenEndpointResponse
  try {
    const server = await authorizationServer(provider, discoveryCache(config), now)
    const { client, auth } = clientOf(provider)
    const http = httpOptions(provider, new URL(server.token_endpoint as string))
    const response = await o.refreshTokenGrantRequest(server, client, auth, refreshToken, http)
    tokens = await o.processRefreshTokenResponse(server, client, response)
  } catch (err) {
    if (err instanceof o.ResponseBodyError && err.error === "invalid_grant") {
      throw new RefreshTokenError("The provider refused the refresh token.", { err, provider: provider.id })
    }
    if (err instanceof AuthError) throw err
    throw new AccessTokenUnavailable("The provider did not refresh the access token.", { err, provider: provider.id })
  }
  const expiresAt = typeof tokens.expires_in === "number" ? Math.floor(now / 1000) + tokens.expires_in : undefined
  return withoutUndefined<TokenRecord>({
    providerAccountId: record.providerAccountId,
    access_token: tokens.access_token,
    token_type: tokens.token_type ?? record.token_type,
    scope: tokens.scope ?? record.scope,
    refresh_token: tokens.refresh_token ?? refreshToken,
    expires_at: expiresAt,
    received_at: Math.floor(now / 1000),
  })
}
