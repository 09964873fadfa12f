/**
 * The step-up flow (src/machines/step-up.ts) as the runtime runs it: its effects, its page, and
 * `stepUpFlow(options)`, declared with `defineFlow` like every other flow. Its requests are
 * `GET|POST <basePath>/reauth` (../front/step-up-routes.ts); an app changes it by passing its own
 * `stepUpFlow({ … })` in `config.flows` (the same id replaces the built-in one).
 *
 * A proof counts only for the user signed in on the request, who must still be the user the run started
 * for: another user's password, TOTP code or passkey is a wrong answer. Wrong answers are counted per
 * user in the server-state port (`maxAttempts` within `attemptWindow`, across runs and instances).
 */
import { AccessDenied, AuthError, CallbackRouteError } from "../../errors.js"
import { type StepUpMethod, type StepUpPending, type StepUpPrepared, type StepUpVerdict, stepUpMachine } from "../../machines/step-up.js"
import type { Issued } from "../../machines/types.js"
import type { Awaitable, CredentialInput, CredentialsConfig } from "../../types.js"
import { type EffectContext, type FlowDefinition, defineFlow } from "./define-flow.js"
import { contextEffect } from "./effects/effect.js"
import type { FlowPageProps } from "./extend-flow.js"
import { userRequestFor } from "../http/context.js"
import { escapeHtml } from "../http/pages/html.js"
import { renderStepPage } from "../http/pages/step.js"
import { signInHref } from "../http/respond.js"
import { stateKey } from "../limits/server-state.js"
import { noteDatabaseAuthTime, withAuthTime } from "../sessions/auth-time.js"
import { reissueJwt } from "../sessions/session.js"
import { signedIn } from "../sessions/signed-in.js"
import { STEP_UP_ACTION } from "../factors/recent-auth.js"
import { activeTotpSecret } from "../factors/totp-secrets.js"

export { STEP_UP_ACTION }
import { passkeyOptions, passkeyProves } from "./step-up-passkey.js"
import { english, text } from "../../messages/text.js"
import { en } from "../../messages/en.js"
import { requestLanguage } from "../http/language.js"

/** The flow id of step-up (pass your own `stepUpFlow(...)` in `config.flows` to replace the built-in one). */
export const STEP_UP_FLOW = "step-up"

/**
 * Options of {@link stepUpFlow}.
 * @example const flows = [stepUpFlow({ totpSecretFor: (user) => db.totpSecret(user.id), maxAttempts: 3 })]
 */
export interface StepUpOptions {
  /**
   * The user's TOTP secret (base32), as your `totpStep({ secretFor })` reads it; null when they have
   * none. Default: the secret the user enrolled on the account pages (the server-state port).
   */
  totpSecretFor?: (user: { id: string }) => Awaitable<string | null | undefined>
  /** Wrong answers allowed per user within `attemptWindow`; the next one ends the run. Default 5. */
  maxAttempts?: number
  /** Seconds a user's wrong answers are counted for. Default 900. */
  attemptWindow?: number
}

/** A wrong answer's message, in the request's language. */
const retry = (
  ctx: EffectContext,
  key: "reauth.wrongPassword" | "reauth.chooseMethod" | "reauth.passkeyFailed" | "totp.invalid" | "totp.used",
): StepUpVerdict => ({
  pass: false,
  message: text(requestLanguage(ctx), key),
})

interface PasswordProvider {
  readonly id: string
  readonly config: CredentialsConfig
}

/** The credentials provider a password is checked with: the first configured one. */
function passwordProvider(ctx: EffectContext): PasswordProvider | undefined {
  for (const provider of ctx.config.providers.values()) {
    if (provider.config.type === "credentials") return { id: provider.id, config: provider.config }
  }
  return undefined
}

function totpSecret(ctx: EffectContext, options: StepUpOptions, userId: string): Promise<string | null | undefined> {
  return Promise.resolve(options.totpSecretFor ? options.totpSecretFor({ id: userId }) : activeTotpSecret(ctx.config, userId))
}

/**
 * The ways the user can prove again who they are: a passkey when they have one (and its options), a
 * password when a credentials provider is configured, TOTP when they have a secret.
 */
async function methodsOf(
  ctx: EffectContext,
  options: StepUpOptions,
  userId: string,
): Promise<{ methods: StepUpMethod[]; passkey: { options: unknown; challenge: string } | null }> {
  const methods: StepUpMethod[] = []
  const passkey = await passkeyOptions(ctx, userId)
  if (passkey) methods.push("passkey")
  if (passwordProvider(ctx)) methods.push("password")
  if (await totpSecret(ctx, options, userId)) methods.push("totp")
  return { methods, passkey }
}

/** The credentials provider's fields as the page draws them. */
function passwordFields(provider: PasswordProvider | undefined): Array<{ name: string; label: string; type: string }> {
  const inputs: Record<string, CredentialInput> = provider?.config.credentials ?? {}
  return Object.entries(inputs).map(([name, input]) => ({ name, label: String(input.label ?? name), type: String(input.type ?? "text") }))
}

function prepare(options: StepUpOptions) {
  return contextEffect<StepUpPrepared, { params: Record<string, unknown> }>(async (ctx) => {
    const who = await signedIn(ctx)
    // nobody signed in, or no proof to ask: a sign-in (which is a proof) brings the user back
    if (who.userId === undefined) return { ask: false, redirect: signInHref(ctx, ctx.callbackUrl) }
    const { methods, passkey } = await methodsOf(ctx, options, who.userId)
    if (methods.length === 0) return { ask: false, redirect: signInHref(ctx, ctx.callbackUrl) }
    const pending: StepUpPending = { userId: who.userId, methods, challenge: passkey?.challenge ?? null }
    const page = {
      methods,
      action: `${ctx.authUrl}/${STEP_UP_ACTION}`,
      password: passwordFields(passwordProvider(ctx)),
      ...(passkey ? { passkey: JSON.stringify(passkey.options), script: `${ctx.authUrl}/webauthn-script` } : {}),
    }
    return { ask: true, pending, page }
  })
}

async function checkPassword(ctx: EffectContext, userId: string, params: Record<string, unknown>): Promise<StepUpVerdict> {
  const provider = passwordProvider(ctx)
  if (!provider) return retry(ctx, "reauth.chooseMethod")
  const { method: _, csrfToken: __, ...fields } = params
  let user: Awaited<ReturnType<CredentialsConfig["authorize"]>>
  try {
    user = await provider.config.authorize(fields, userRequestFor(provider.config.authorize, 1, ctx.req))
  } catch (err) {
    if (err instanceof AuthError) return retry(ctx, "reauth.wrongPassword")
    throw new CallbackRouteError("authorize threw an error.", { err, provider: provider.id })
  }
  // only the signed-in user's own password: another account's right password is a wrong answer here
  return user && user.id !== undefined && user.id !== null && String(user.id) === userId
    ? { pass: true }
    : retry(ctx, "reauth.wrongPassword")
}

async function checkTotp(ctx: EffectContext, options: StepUpOptions, userId: string, code: unknown): Promise<StepUpVerdict> {
  const secret = await totpSecret(ctx, options, userId)
  // the TOTP module is loaded by the first step-up that answers with a code, not by every app that imports authchart
  const { verifyTotp } = await import("../../steps/totp.js")
  const step = secret && typeof code === "string" ? verifyTotp(secret, code.trim(), ctx.now) : null
  if (step === null) return retry(ctx, "totp.invalid")
  // the same claim as the TOTP sign-in step: a code used once (to sign in or to step up) is not taken again
  const validFor = (step + 2) * 30_000 - ctx.now
  return (await ctx.config.serverState.claim(stateKey("totp", userId, step), validFor)) ? { pass: true } : retry(ctx, "totp.used")
}

function verify(options: StepUpOptions) {
  const max = options.maxAttempts ?? 5
  const windowMs = (options.attemptWindow ?? 900) * 1000
  return contextEffect<StepUpVerdict, { params: Record<string, unknown>; pending: StepUpPending | null }>(async (ctx, input) => {
    const pending = input.pending
    const who = await signedIn(ctx)
    if (!pending || who.userId === undefined || who.userId !== pending.userId) {
      throw new AccessDenied("The re-authentication is not for the user signed in on this request.")
    }
    const attempts = stateKey("attempts", pending.userId, STEP_UP_FLOW)
    const { count } = await ctx.config.serverState.count(attempts, windowMs)
    if (count > max) throw new AccessDenied(`Re-authentication refused attempt ${count} (at most ${max}).`)
    const method = input.params.method
    const verdict: StepUpVerdict =
      typeof method !== "string" || !pending.methods.includes(method as StepUpMethod)
        ? retry(ctx, "reauth.chooseMethod")
        : method === "password"
          ? await checkPassword(ctx, pending.userId, input.params)
          : method === "passkey"
            ? (await passkeyProves(ctx, pending.userId, pending.challenge, input.params.data))
              ? { pass: true as const }
              : retry(ctx, "reauth.passkeyFailed")
            : await checkTotp(ctx, options, pending.userId, input.params.code)
    if (verdict.pass) await ctx.config.serverState.reset(attempts)
    else if (count >= max) throw new AccessDenied(`Re-authentication failed after ${count} attempt(s).`)
    return verdict
  })
}

/** The session's proof time set to now: the same user, the same session (a JWT re-issued with it, a database session's record). */
const refreshProof = contextEffect<Issued, { userId: string }>(async (ctx, input) => {
  const who = await signedIn(ctx)
  if (who.userId === undefined || who.userId !== input.userId) {
    throw new AccessDenied("The session changed during the re-authentication.")
  }
  if (who.token !== undefined) {
    await noteDatabaseAuthTime(ctx.config, who.token, ctx.now)
    return { redirect: ctx.callbackUrl, cookies: [...who.cookies] }
  }
  if (!who.payload) throw new AccessDenied("The session cannot carry a proof time.")
  return { redirect: ctx.callbackUrl, cookies: await reissueJwt(ctx, withAuthTime(who.payload, ctx.now)) }
})

/**
 * The passkey button's script: the assertion by `@simplewebauthn/browser` (loaded before it from
 * `<basePath>/webauthn-script`) with the options the page carries, its JSON in the form's `data`, and
 * the form posted with `method=passkey`.
 */
const PASSKEY_SCRIPT = `document.getElementById("reauth-passkey").addEventListener("click",async(e)=>{const b=e.currentTarget,f=b.form;try{const r=await SimpleWebAuthnBrowser.startAuthentication({optionsJSON:JSON.parse(b.dataset.options)});f.elements.data.value=JSON.stringify(r);f.elements.method.value="passkey";f.submit()}catch(err){b.disabled=false}})`

/** The page's own texts (none has a placeholder). */
type PageKey = "reauth.method" | "reauth.hint" | "reauth.totpLabel" | "reauth.passkeyButton" | `reauth.method.${StepUpMethod}`

/** The `reauth` page: the ways the user has, in the sign-in page's themed card, in the page's language. */
function reauthPage(props: FlowPageProps): string {
  const data = props.data as {
    methods?: StepUpMethod[]
    action?: string
    password?: Array<{ name: string; label: string; type: string }>
    passkey?: string
    script?: string
  }
  const language = props.language ?? english
  const say = (key: PageKey) => escapeHtml(text(language, key))
  const methods = data.methods ?? []
  const choose =
    methods.length === 1
      ? `<input type="hidden" name="method" value="${escapeHtml(methods[0] ?? "")}">`
      : `<label for="reauth-method">${say("reauth.method")}</label><select id="reauth-method" name="method">${methods
          .map((m) => `<option value="${escapeHtml(m)}">${say(`reauth.method.${m}`)}</option>`)
          .join("")}</select>`
  const password = methods.includes("password")
    ? (data.password ?? [])
        .map(
          (f) =>
            `<label for="reauth-${escapeHtml(f.name)}">${escapeHtml(f.label === en["signin.email.label"] ? text(language, "signin.email.label") : f.label)}</label><input id="reauth-${escapeHtml(f.name)}" name="${escapeHtml(f.name)}" type="${escapeHtml(f.type)}"${f.type === "password" ? ' autocomplete="current-password"' : ""}>`,
        )
        .join("")
    : ""
  const totp = methods.includes("totp")
    ? `<label for="reauth-code">${say("reauth.totpLabel")}</label><input id="reauth-code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6">`
    : ""
  const passkey =
    methods.includes("passkey") && typeof data.passkey === "string" && typeof data.script === "string"
      ? `<input type="hidden" name="data" value=""><button type="button" id="reauth-passkey" data-options="${escapeHtml(data.passkey)}">${say("reauth.passkeyButton")}</button>` +
        `<script nonce="${escapeHtml(props.nonce)}" src="${escapeHtml(data.script)}"></script><script nonce="${escapeHtml(props.nonce)}">${PASSKEY_SCRIPT}</script>`
      : ""
  const fields = `<p class="hint">${say("reauth.hint")}</p>${choose}${passkey}${password}${totp}`
  return renderStepPage(
    { ...props, action: typeof data.action === "string" ? data.action : props.action },
    { title: text(language, "reauth.title"), fields, submitLabel: text(language, "reauth.submit") },
  )
}

/**
 * The step-up (re-authentication) flow: `GET <basePath>/reauth?callbackUrl=…` asks the signed-in user
 * for a fresh proof (one of their passkeys, their password through the credentials provider's
 * `authorize`, or a TOTP code),
 * and a right one sets the session's `authTime` to now and redirects back to the callback URL (same
 * origin only). The built-in one is `stepUpFlow()`; pass your own in `config.flows` to change it.
 *
 * @example
 * ```ts
 * import { stepUpFlow } from "authchart"
 * const config = { flows: [stepUpFlow({ totpSecretFor: (user) => db.totpSecret(user.id) })], providers, secret }
 * ```
 */
export function stepUpFlow(options: StepUpOptions = {}): FlowDefinition {
  return defineFlow({
    id: STEP_UP_FLOW,
    machine: stepUpMachine,
    routes: [
      { method: "GET", action: STEP_UP_ACTION, event: "START", start: true },
      { method: "POST", action: STEP_UP_ACTION, event: "PROVE", csrf: true, params: "body" },
    ],
    actors: { stepUpPrepare: prepare(options), stepUpVerify: verify(options), refreshProof },
    pages: { reauth: reauthPage },
  })
}

/** The built-in step-up flow (no options). */
export const defaultStepUpFlow: FlowDefinition = stepUpFlow()
