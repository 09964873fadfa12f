/**
 * The built-in pages (sign-in, sign-out, verify-request, error), or redirects to the app's own `pages`.
 */
import type { CredentialsConfig } from "../../types.js"
import type { WebAuthnConfig } from "../../providers/webauthn-types.js"
import { resolveCallbackUrl } from "./callback-url.js"
import type { Handled, RequestContext } from "./context.js"
import type { OutCookie } from "./cookies.js"
import { csrfState } from "./csrf.js"
import { pageNonce } from "./pages/csp.js"
import {
  type PageProvider,
  imageOrigins,
  renderError,
  renderSignIn,
  renderSignOut,
  renderVerifyRequest,
  signInImageOrigins,
} from "./pages/index.js"
import { formTargets, htmlPage, redirect } from "./respond.js"
import { chooseLanguage } from "./language.js"
import { defaultLogoutOrigin, logoutChoices } from "../sessions/logout/rp-initiated.js"

/** Absolute URLs of a provider's sign-in and callback routes. */
export function providerUrls(ctx: RequestContext, id: string): { signinUrl: string; callbackUrl: string } {
  const encoded = encodeURIComponent(id)
  return { signinUrl: `${ctx.authUrl}/signin/${encoded}`, callbackUrl: `${ctx.authUrl}/callback/${encoded}` }
}

function pageProviders(ctx: RequestContext): PageProvider[] {
  return [...ctx.config.providers.values()].map((p) => ({
    id: p.id,
    name: p.name,
    type: p.type,
    ...providerUrls(ctx, p.id),
    ...(p.style ? { style: p.style } : {}),
    ...(p.type === "credentials" ? { credentials: (p.config as CredentialsConfig).credentials ?? {} } : {}),
    ...(p.type === "webauthn" ? webauthnForm(ctx, p.config as WebAuthnConfig) : {}),
  }))
}

/** A WebAuthn provider's form, shown when it has `formFields` (as in Auth.js). */
function webauthnForm(ctx: RequestContext, provider: WebAuthnConfig): Pick<PageProvider, "webauthn"> {
  if (!provider.formFields) return {}
  const optionsUrl = `${ctx.authUrl}/webauthn-options/${encodeURIComponent(provider.id)}`
  return { webauthn: { optionsUrl, formFields: provider.formFields, conditionalUI: provider.enableConditionalUI === true } }
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
  const providers = pageProviders(ctx)
  const { language, negotiated } = chooseLanguage(ctx.config.languages, ctx.req.headers)
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
  const policy = {
    nonce,
    formAction: formTargets(ctx, callback.url),
    images: signInImageOrigins({ providers, theme: ctx.config.theme }),
    // the passkey script asks the options route
    ...(providers.some((p) => p.webauthn) ? { connect: [ctx.origin] } : {}),
  }
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
