/**
 * Sign in with TikTok (OAuth 2).
 *
 * @example
 * ```ts
 * import TikTok from "authchart/providers/tiktok"
 * TikTok({ clientId: process.env.AUTH_TIKTOK_ID, clientSecret: process.env.AUTH_TIKTOK_SECRET })
 * ```
 * TikTok calls the client id `client_key`: the authorization request and the token request carry it
 * under that name too (so pass `clientId` when calling the preset). Asks for `user.info.basic`; TikTok
 * shares no email address.
 * @see https://developers.tiktok.com/doc/login-kit-web/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { TiktokProfile } from "./profiles/tiktok.js"
import { customFetch } from "../runtime/config/custom-fetch.js"

export type { TiktokProfile } from "./profiles/tiktok.js"

export default function TikTok(options: OAuthUserConfig<TiktokProfile> = {}): OAuthConfig<TiktokProfile> {
  const preset: OAuthConfig<TiktokProfile> = {
    id: "tiktok",
    name: "TikTok",
    type: "oauth",
    client: { token_endpoint_auth_method: "client_secret_post" },
    authorization: { url: "https://www.tiktok.com/v2/auth/authorize", params: { client_key: options.clientId, scope: "user.info.basic" } },
    token: "https://open.tiktokapis.com/v2/oauth/token/",
    userinfo: "https://open.tiktokapis.com/v2/user/info/?fields=open_id,avatar_url,display_name",
    profile({ data: { user } }) {
      return { id: user.open_id, name: user.display_name, image: user.avatar_url, email: null }
    },
    style: { bg: "#000", text: "#fff" },
  }
  const ownFetch: typeof fetch = (input, init) => tiktokFetch(options.clientId, input, init)
  return Object.assign(presetWith(preset, options), { [customFetch]: ownFetch })
}

/** The provider's fetch: a token request also carries `client_key`; everything else goes as it is. */
async function tiktokFetch(clientKey: string | undefined, input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : input)
  if (!url.pathname.endsWith("/token/")) return fetch(input, init)
  const body = new URLSearchParams(typeof init?.body === "string" || init?.body instanceof URLSearchParams ? init.body : undefined)
  body.append("client_key", clientKey ?? "")
  const headers = new Headers(init?.headers)
  headers.set("content-type", "application/x-www-form-urlencoded")
  const response = await fetch(url, { ...init, headers, body: body.toString() })
  return Response.json(await response.json(), { status: response.status })
}
