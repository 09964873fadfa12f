/**
 * The services a flow's effects and request hooks receive (`FlowServices`, `RequestServices`), made from
 * the request's context: the few things a sign-in step needs, instead of the whole resolved config.
 */
import type { FlowServices, RequestServices } from "../../../types/flow.js"
import type { RequestContext } from "../../http/context.js"
import { lazyUserRequest } from "../../http/context.js"
import { requestLanguage } from "../../http/language.js"
import type { Language } from "../../../messages/text.js"
import { adapterOf } from "../../sessions/adapter.js"
import { currentUser } from "../../sessions/session.js"
import { openClaims, sealClaims } from "../../crypto/sealed.js"
import { askSignIn } from "./ask-sign-in.js"
import { MissingSecret } from "../../../errors.js"

/** The secrets, newest first; a config without one never serves a flow (it answers its configuration error). */
function configured(secrets: readonly string[]): readonly [string, ...string[]] {
  if (!isNonEmpty(secrets)) throw new MissingSecret("No secret is configured.")
  return secrets
}

const isNonEmpty = (list: readonly string[]): list is readonly [string, ...string[]] => list.length > 0

/** The services of a request, for a request hook (`intercept`, `cookieOptions`). */
export function requestServices(ctx: RequestContext): RequestServices {
  return servicesOf(ctx, undefined)
}

/** The services of a flow run's request, for its effects: the request's, and where the flow ends. */
export function flowServices(ctx: RequestContext, callbackUrl: string): FlowServices {
  return servicesOf(ctx, callbackUrl)
}

function servicesOf(ctx: RequestContext, callbackUrl: string): FlowServices
function servicesOf(ctx: RequestContext, callbackUrl: undefined): RequestServices
function servicesOf(ctx: RequestContext, callbackUrl: string | undefined): RequestServices | FlowServices {
  const { config } = ctx
  const provider = ctx.provider
  if (!provider) throw new TypeError("flow services need the request's provider")
  let request: Request | undefined
  let language: Language | undefined
  const services: RequestServices = {
    provider,
    providers: config.providers,
    now: ctx.now,
    origin: ctx.origin,
    authUrl: ctx.authUrl,
    url: ctx.req.url,
    get language() {
      language ??= requestLanguage(ctx)
      return language
    },
    // a stand-in until first read: a web Request costs more than the rest of most sign-ins
    get request() {
      request ??= lazyUserRequest(ctx.req)
      return request
    },
    serverState: config.serverState,
    adapter: adapterOf(ctx),
    configuredAdapter: config.adapter,
    tokens: config.flowStore.tokens,
    redirectProxyUrl: config.redirectProxyUrl,
    theme: config.theme,
    logger: config.logger,
    secrets: configured(config.secrets),
    seal: (claims, purpose, ttlSeconds) => sealClaims(ctx, claims, purpose, ttlSeconds),
    unseal: (token, purpose) => openClaims(ctx, token, purpose),
    askSignIn: (attempt) => askSignIn(ctx, attempt),
    currentUser: async () => {
      const adapter = adapterOf(ctx)
      return adapter ? currentUser(ctx, adapter) : null
    },
  }
  return callbackUrl === undefined ? services : Object.assign(services, { callbackUrl })
}
