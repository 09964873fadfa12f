/**
 * Sign in with WeChat (OAuth 2), in the WeChat app (official account) or on a website (QR code).
 *
 * @example
 * ```ts
 * import WeChat from "authchart/providers/wechat"
 * WeChat({ clientId: process.env.AUTH_WECHAT_APP_ID, clientSecret: process.env.AUTH_WECHAT_APP_SECRET, platformType: "WebsiteApp" })
 * ```
 * WeChat calls the client id `appid` and the secret `secret`: pass both when calling the preset.
 * `platformType` is `OfficialAccount` (default, scope `snsapi_userinfo`) or `WebsiteApp` (the QR code
 * page, scope `snsapi_login`). Sends `state` only (no PKCE); a token answer without `token_type` is read
 * as a bearer token. WeChat shares no email address.
 * @see https://developers.weixin.qq.com/doc/oplatform/en/Website_App/WeChat_Login/Wechat_Login.html
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig, UserinfoRequestContext } from "./oauth-types.js"
import type { WeChatProfile } from "./profiles/wechat.js"
import { requestJson } from "./userinfo-request.js"

export type { WeChatProfile } from "./profiles/wechat.js"

/** Options of {@link WeChat}: the usual provider options, plus where the user signs in. */
export type WeChatOptions = OAuthUserConfig<WeChatProfile> & { platformType?: "OfficialAccount" | "WebsiteApp" }

export default function WeChat(options: WeChatOptions = {}): OAuthConfig<WeChatProfile> {
  const { clientId, clientSecret, platformType = "OfficialAccount" } = options
  const inApp = platformType === "OfficialAccount"
  const preset: OAuthConfig<WeChatProfile> = {
    id: "wechat",
    name: "WeChat",
    type: "oauth",
    style: { logo: "/wechat.svg", bg: "#fff", text: "#000" },
    checks: ["state"],
    authorization: {
      url: inApp ? "https://open.weixin.qq.com/connect/oauth2/authorize" : "https://open.weixin.qq.com/connect/qrconnect",
      params: { appid: clientId, scope: inApp ? "snsapi_userinfo" : "snsapi_login" },
    },
    token: {
      url: "https://api.weixin.qq.com/sns/oauth2/access_token",
      params: { appid: clientId, secret: clientSecret },
      conform: withBearerType,
    },
    userinfo: {
      url: "https://api.weixin.qq.com/sns/userinfo",
      request({ tokens, provider }: UserinfoRequestContext) {
        const url = new URL(provider.userinfo?.url ?? "https://api.weixin.qq.com/sns/userinfo")
        url.searchParams.set("access_token", tokens.access_token ?? "")
        url.searchParams.set("openid", String(tokens.openid))
        url.searchParams.set("lang", "zh_CN")
        return requestJson(url.href, { timeout: options.timeout })
      },
    },
    profile(profile) {
      return { id: profile.unionid, name: profile.nickname, email: null, image: profile.headimgurl }
    },
  }
  return presetWith(preset, options)
}

/** WeChat's token answer carries no `token_type`; it is a bearer token. */
async function withBearerType(response: Response): Promise<Response> {
  const body: unknown = await response.json()
  if (typeof body !== "object" || body === null || ("token_type" in body && body.token_type === "bearer")) return response
  return Response.json(
    { ...body, token_type: "bearer" },
    { status: response.status, statusText: response.statusText, headers: response.headers },
  )
}
