/**
 * The built-in pages (sign-in, sign-out, verify-request, error), or redirects to the app's own `pages`.
 */
import { resolveCallbackUrl } from "../http/callback-url.js"
import type { Handled, RequestContext } from "../http/context.js"
import type { OutCookie } from "../http/cookies.js"
import { csrfState } from "../http/csrf.js"
import { pageNonce } from "../http/pages/csp.js"
import {
  type PageProvider,
  imageOrigins,
  renderError,
  renderSignIn,
  renderSignOut,
  renderVerifyRequest,
  signInPolicyOrigins,
} from "../http/pages/index.js"
import { declarationOf } from "../config/declarations.js"
import { formTargets, htmlPage, redirect } from "../http/respond.js"
import { chooseLanguage } from "../http/language.js"
import type { Language } from "../../messages/text.js"
import { defaultLogoutOrigin, logoutChoices } from "../sessions/logout/rp-initiated.js"

/** Absolute URLs of a provider's sign-in and callback routes. */
export function providerUrls(ctx: RequestContext, id: string): { signinUrl: string; callbackUrl: string } {
  const encoded = encodeURIComponent(id)
  return { signinUrl: `${ctx.authUrl}/signin/${encoded}`, callbackUrl: `${ctx.authUrl}/callback/${encoded}` }
}

/** Each provider as the sign-in page shows it, with the block its flow declares (none: no block). */
function pageProviders(ctx: RequestContext, language: Language): PageProvider[] {
  return [...ctx.config.providers.values()].map((p) => {
    const urls = providerUrls(ctx, p.id)
    const block = declarationOf(ctx.config, p, "signInBlock")
    return {
      id: p.id,
      name: p.name,
      type: p.type,
      ...urls,
      ...(p.style ? { style: p.style } : {}),
      block: block ? block(p, { authUrl: ctx.authUrl, ...urls }, language) : null,
    }
  })
}

export async function signInPage(ctx: RequestContext): Promise<Handled> {
  const callback = await resolveCallbackUrl(ctx)
  const error = ctx.req.url.searchParams.get("error") ?? undefined
  const custom = ctx.config.pages.signIn
  if (custom) {
    const url = new URL(custom, ctx.origin)
    url.searchParams.set("callbackUrl", callback.url)
    if (error) url.searchParams.set("error", error)
    return { response: redirect(url.href, callback.cookie ? [callback.cookie] : []) }
  }
  const csrf = csrfState(ctx)
  const email = ctx.req.url.searchParams.get("email") ?? undefined
  const retryIn = Number(ctx.req.url.searchParams.get("retryIn"))
  const nonce = pageNonce()
  const { language, negotiated } = chooseLanguage(ctx.config.languages, ctx.req.headers)
  const providers = pageProviders(ctx, language)
  const html = renderSignIn({
    providers,
    csrfToken: csrf.token,
    callbackUrl: callback.url,
    ...(email ? { email } : {}),
    ...(error ? { error } : {}),
    ...(Number.isInteger(retryIn) && retryIn > 0 && retryIn <= 24 * 60 ? { retryIn } : {}),
    theme: ctx.config.theme,
    webauthnScriptUrl: `${ctx.authUrl}/webauthn-script`,
    nonce,
    language,
  })
  const cookies = [csrf.cookie, callback.cookie].filter((c): c is OutCookie => c !== undefined)
  // the blocks' logos, and the origins their scripts fetch (the passkey script asks the options route)
  const { images, connect } = signInPolicyOrigins({ providers, theme: ctx.config.theme })
  const policy = { nonce, formAction: formTargets(ctx, callback.url), images, ...(connect.length > 0 ? { connect } : {}) }
  return { response: htmlPage(html, policy, 200, cookies, negotiated) }
}

export async function signOutPage(ctx: RequestContext): Promise<Handled> {
  const custom = ctx.config.pages.signOut
  if (custom) return { response: redirect(new URL(custom, ctx.origin).href) }
  const csrf = csrfState(ctx)
  const nonce = pageNonce()
  const [logoutProviders, atProvider] = await Promise.all([logoutChoices(ctx), defaultLogoutOrigin(ctx)])
  const { language, negotiated } = chooseLanguage(ctx.config.languages, ctx.req.headers)
  const action = `${ctx.authUrl}/signout`
  const html = renderSignOut({ csrfToken: csrf.token, action, theme: ctx.config.theme, nonce, logoutProviders, language })
  const callback = await resolveCallbackUrl(ctx)
  const providerOrigins = [...logoutProviders.map((p) => p.origin), ...(atProvider ? [atProvider] : [])]
  const formAction = [...new Set([...formTargets(ctx, callback.url), ...providerOrigins])]
  const policy = { nonce, formAction, images: imageOrigins([ctx.config.theme.logo]) }
  return { response: htmlPage(html, policy, 200, csrf.cookie ? [csrf.cookie] : [], negotiated) }
}

export async function verifyRequestPage(ctx: RequestContext): Promise<Handled> {
  const custom = ctx.config.pages.verifyRequest
  if (custom) return { response: redirect(`${new URL(custom, ctx.origin).href}${ctx.req.url.search}`) }
  const nonce = pageNonce()
  const { language, negotiated } = chooseLanguage(ctx.config.languages, ctx.req.headers)
  const html = renderVerifyRequest({ homeUrl: ctx.origin, host: new URL(ctx.origin).host, theme: ctx.config.theme, nonce, language })
  return { response: htmlPage(html, { nonce, images: imageOrigins([ctx.config.theme.logo]) }, 200, undefined, negotiated) }
}

export async function errorPage(ctx: RequestContext): Promise<Handled> {
  const error = ctx.req.url.searchParams.get("error") ?? ""
  const custom = ctx.config.pages.error
  if (custom) {
    const url = new URL(custom, ctx.origin)
    if (error) url.searchParams.set("error", error)
    return { response: redirect(url.href) }
  }
  const nonce = pageNonce()
  const { language, negotiated } = chooseLanguage(ctx.config.languages, ctx.req.headers)
  const page = renderError({ error, homeUrl: ctx.origin, signInUrl: `${ctx.authUrl}/signin`, theme: ctx.config.theme, nonce, language })
  const policy = { nonce, images: imageOrigins([ctx.config.theme.logo]) }
  return { response: htmlPage(page.html, policy, page.status, undefined, negotiated) }
}
