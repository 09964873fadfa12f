/**
 * The engine's last part, respond: how a flow run ended or rests becomes the response. A flow's page
 * (`{ type: "page", page }`) is rendered here by the flow's own renderer, with the CSRF token, the
 * form's target and the response's nonce, straight into an HTML response.
 */
import { AuthError, FlowStateError } from "../../errors.js"
import type { FlowContext } from "../../machines/setup.js"
import type { FlowOutput, Reply } from "../../machines/types.js"
import type { CallbackUrl } from "../http/callback-url.js"
import type { Handled, RequestContext } from "../http/context.js"
import type { OutCookie } from "../http/cookies.js"
import { csrfState } from "../http/csrf.js"
import type { FlowDefinition } from "./define-flow.js"
import { pageNonce } from "../http/pages/csp.js"
import { chooseLanguage } from "../http/language.js"
import { errorResponse, formTargets, htmlPage, jsonWithCookies, redirect, signInHref } from "../http/respond.js"

/** How one request left the flow: ended (with its output) or resting (with its context, persisted). */
export type Outcome =
  | { readonly status: "ended"; readonly state: string; readonly output: FlowOutput }
  | { readonly status: "resting"; readonly state: string; readonly snapshot: unknown; readonly context: FlowContext }

/** What `respond` needs of the loaded flow: the callback URL resolved, and the one the envelope keeps. */
export interface CallbackOf {
  readonly callback: CallbackUrl
  readonly keptUrl: string | undefined
}

/** A flow's page, rendered by the flow's renderer for it. */
function flowPage(
  ctx: RequestContext,
  flow: FlowDefinition,
  reply: Extract<Reply, { type: "page" }>,
  context: FlowContext | undefined,
  callbackUrl: string | undefined,
  cookies: readonly OutCookie[],
): Handled {
  const render = flow.pages?.[reply.page]
  if (!render) return errorResponse(ctx, new AuthError(`No renderer for page "${reply.page}".`), cookies)
  const csrf = csrfState(ctx)
  const message = typeof reply.data?.message === "string" ? reply.data.message : undefined
  const nonce = pageNonce()
  // a machine of its own may keep no `steps`
  const step = context?.steps?.[reply.page]
  const { language, negotiated } = chooseLanguage(ctx.config.languages, ctx.req.headers)
  const html = render({
    step: reply.page,
    action: `${ctx.authUrl}/callback/${encodeURIComponent(ctx.providerId as string)}`,
    csrfToken: csrf.token,
    attempt: step?.attempts ?? 0,
    // an extra step's data, else what the flow's reply carries (e.g. the address a code went to)
    data: step?.data ?? reply.data ?? {},
    theme: ctx.config.theme,
    nonce,
    cancelUrl: signInHref(ctx, callbackUrl),
    language,
    ...(message ? { message } : {}),
  })
  const all = [...cookies, ...(csrf.cookie ? [csrf.cookie] : [])]
  return { response: htmlPage(html, { nonce, formAction: formTargets(ctx, callbackUrl) }, 200, all, negotiated) }
}

/** A machine's reply as a response. */
function replyResponse(
  ctx: RequestContext,
  flow: FlowDefinition,
  reply: Reply,
  context: FlowContext | undefined,
  callbackUrl: string | undefined,
  cookies: readonly OutCookie[],
): Handled {
  switch (reply.type) {
    case "redirect":
      return { response: redirect(reply.url, [...cookies, ...((reply.cookies ?? []) as OutCookie[])]) }
    case "json":
      return { response: jsonWithCookies(reply.body, [...cookies], reply.status ?? 200) }
    case "page":
      return flowPage(ctx, flow, reply, context, callbackUrl, cookies)
  }
}

/**
 * respond: an ended flow answers with its output's reply (or its error); a resting one with the reply
 * its state set. `cookies` are what persisting set (the saved or cleared flow state).
 */
export function respondFlow(
  ctx: RequestContext,
  flow: FlowDefinition,
  loaded: CallbackOf,
  outcome: Outcome,
  cookies: readonly OutCookie[],
): Handled {
  const extra = loaded.callback.cookie ? [loaded.callback.cookie] : []
  if (outcome.status === "ended") {
    if (!outcome.output.ok) return errorResponse(ctx, outcome.output.error, cookies)
    return replyResponse(ctx, flow, outcome.output.reply, undefined, loaded.keptUrl, [...cookies, ...extra])
  }
  const reply = outcome.context.reply
  if (!reply) throw new FlowStateError(`Flow "${flow.id}" rested without a reply.`)
  return replyResponse(ctx, flow, reply, outcome.context, loaded.keptUrl, [...cookies, ...extra])
}
