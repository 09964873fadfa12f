import type { CredentialInput, Theme } from "../../../types.js"
import type { MessageKey } from "../../../messages/en.js"
import { english, type Language, plural, text } from "../../../messages/text.js"
import { attr, cssColor, html, imageOrigins, imageUrl, layout, type SafeHtml } from "./html.js"
import { webauthnMessagesAttribute } from "./webauthn-client.js"

/** A provider as the sign-in page shows it: resolved URLs, no secrets. */
export interface PageProvider {
  id: string
  name: string
  type: "oauth" | "oidc" | "email" | "credentials" | "webauthn"
  /** `{origin}{basePath}/signin/{id}`. */
  signinUrl: string
  /** `{origin}{basePath}/callback/{id}`. */
  callbackUrl: string
  style?: { logo?: string; bg?: string; text?: string; brandColor?: string }
  /** Fields of a credentials provider. */
  credentials?: Record<string, CredentialInput>
  /** A WebAuthn provider with `formFields`: its form, options URL and conditional UI. */
  webauthn?: { optionsUrl: string; formFields: Record<string, CredentialInput>; conditionalUI: boolean }
}

/** Input of {@link renderSignIn}. Built by the runtime from validated data, never from the query string. */
export interface SignInPageProps {
  providers: PageProvider[]
  csrfToken: string
  /** Where to go after signing in; posted back as a hidden field. */
  callbackUrl: string
  /** Prefill of the e-mail field. */
  email?: string
  /** Error code from `?error=`; only selects one of the fixed messages below. */
  error?: string
  /** With `error=RateLimited`: whole minutes until another attempt is admitted. */
  retryIn?: number
  theme: Theme
  /** `{origin}{basePath}/webauthn-script`, loaded when a WebAuthn form is shown. */
  webauthnScriptUrl?: string
  /** The response's CSP nonce, on the page's `<style>` and `<script>`. */
  nonce: string
  /** The language the page is drawn in. Default English. */
  language?: Language
}

/** The codes with a message of their own on the sign-in page (`signin.error.<code>`); others get `signin.error.default`. */
const SIGNIN_ERRORS: ReadonlySet<string> = new Set([
  "Signin",
  "OAuthSignin",
  // also what a cancel at the provider (`error=access_denied`) ends in
  "OAuthCallbackError",
  "OAuthCreateAccount",
  "EmailCreateAccount",
  "Callback",
  "OAuthAccountNotLinked",
  "EmailSignin",
  "EmailSignInError",
  "CredentialsSignin",
  "SessionRequired",
  "MissingCSRF",
  "FlowStateError",
  "FlowStartedElsewhere",
  "AccountNotLinked",
  "AccessDenied",
  "RateLimited",
] satisfies readonly SignInErrorCode[])

type SignInErrorCode = MessageKey extends infer K
  ? K extends `signin.error.${infer Code}`
    ? Code extends `${string}.${string}`
      ? never
      : Code
    : never
  : never

const isSignInError = (code: string): code is Exclude<SignInErrorCode, "default"> => SIGNIN_ERRORS.has(code)

/**
 * The message the sign-in page shows for an error code; unknown codes get "Unable to sign in.".
 *
 * @example signInErrorMessage("CredentialsSignin") // "Sign in failed. Check the details you provided are correct."
 */
export function signInErrorMessage(code: string, language: Language = english): string {
  return text(language, isSignInError(code) ? `signin.error.${code}` : "signin.error.default")
}

/** "Too many attempts. Try again in N minutes." (whole minutes, at least one). */
export function rateLimitMessage(retryAfterSeconds: number, language: Language = english): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60))
  return plural(language, "signin.error.retryIn", minutes, { minutes })
}

const INPUT_TYPES = new Set(["text", "password", "email", "tel", "number", "url", "search", "date", "hidden"])

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined)
const int = (v: unknown): number | undefined => {
  const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : undefined
}

/** How each kind of form signs in, to tell apart fields that would otherwise share a label. */
function methodOf(p: PageProvider, language: Language): string {
  switch (p.type) {
    case "email":
      return text(language, "signin.method.email")
    case "webauthn":
      return text(language, "signin.method.passkey")
    default:
      return Object.values(p.credentials ?? {}).some((input) => input.type === "password")
        ? text(language, "signin.method.password")
        : p.name
  }
}

/** Field labels as shown: a label that more than one form on the page uses gets its form's method. */
type Labeller = (p: PageProvider, label: string) => string

function labeller(providers: readonly PageProvider[], language: Language): Labeller {
  const emailLabel = text(language, "signin.email.label")
  const seen = new Map<string, Set<string>>()
  const note = (p: PageProvider, label: string) => {
    const key = label.trim().toLowerCase()
    seen.set(key, (seen.get(key) ?? new Set()).add(p.id))
  }
  for (const p of providers) {
    if (p.type === "email") note(p, emailLabel)
    const fields = p.type === "credentials" ? p.credentials : p.type === "webauthn" ? p.webauthn?.formFields : undefined
    for (const [key, input] of Object.entries(fields ?? {})) note(p, str(input.label) ?? key)
  }
  return (p, label) =>
    (seen.get(label.trim().toLowerCase())?.size ?? 0) > 1
      ? text(language, "signin.labelFor", { label, method: methodOf(p, language) })
      : label
}

function credentialField(p: PageProvider, key: string, input: CredentialInput, label: Labeller, formField = false): SafeHtml {
  const id = `input-${key}-for-${p.id}-provider`
  const type = str(input.type)
  return html`<div><label class="section-header" for="${id}">${label(p, str(input.label) ?? key)}</label><input${[
    attr("name", key),
    attr("id", id),
    attr("type", type && INPUT_TYPES.has(type) ? type : "text"),
    attr("placeholder", str(input.placeholder)),
    attr("value", str(input.value)),
    attr("autocomplete", str(input.autocomplete)),
    attr("pattern", str(input.pattern)),
    attr("minlength", int(input.minlength ?? input.minLength)),
    attr("maxlength", int(input.maxlength ?? input.maxLength)),
    attr("required", input.required === true),
    attr("data-form-field", formField),
  ]}></div>`
}

function hidden(csrfToken: string, callbackUrl: string): SafeHtml {
  return html`<input type="hidden" name="csrfToken"${attr("value", csrfToken)}>${
    callbackUrl ? html`<input type="hidden" name="callbackUrl"${attr("value", callbackUrl)}>` : null
  }`
}

const submit = (name: string, language: Language): SafeHtml =>
  html`<button id="submitButton" type="submit">${text(language, "signin.submit", { provider: name })}</button>`

/**
 * The CSS variables of an OAuth button from the provider's validated colours, as a rule for its class
 * (`.provider-button-<index>`): the page's policy allows no `style` attribute.
 */
function buttonCss(p: PageProvider, index: number): string {
  const bg = cssColor(p.style?.brandColor ?? p.style?.bg)
  const text = cssColor(p.style?.text)
  const vars = `${bg ? `--provider-brand-color:${bg};` : ""}${text ? `--provider-text-color:${text};` : ""}`
  return vars ? `.provider-button-${index}{${vars}}` : ""
}

function providerBlock(p: PageProvider, index: number, props: SignInPageProps, label: Labeller): SafeHtml | null {
  const fields = hidden(props.csrfToken, props.callbackUrl)
  const language = props.language ?? english
  switch (p.type) {
    case "oauth":
    case "oidc": {
      const logo = imageUrl(p.style?.logo)
      return html`<div class="provider"><form${attr("action", p.signinUrl)} method="POST">${fields}<button type="submit" class="button provider-button-${index}">${
        logo ? html`<img loading="lazy" height="24" width="24" alt=""${attr("src", logo)}>` : null
      }<span>${text(language, "signin.submit", { provider: p.name })}</span></button></form></div>`
    }
    case "email": {
      const id = `input-email-for-${p.id}-provider`
      return html`<div class="provider"><form${attr("action", p.signinUrl)} method="POST">${fields}<label class="section-header"${attr("for", id)}>${label(p, text(language, "signin.email.label"))}</label><input${attr("id", id)} autofocus type="email" name="email"${attr("value", props.email)}${attr("placeholder", text(language, "signin.email.placeholder"))} required>${submit(p.name, language)}</form></div>`
    }
    case "credentials":
      return html`<div class="provider"><form${attr("action", p.callbackUrl)} method="POST">${fields}${Object.entries(
        p.credentials ?? {},
      ).map(([key, input]) => credentialField(p, key, input, label))}${submit(p.name, language)}</form></div>`
    case "webauthn": {
      const w = p.webauthn
      if (!w) return null
      return html`<div class="provider"><form${attr("id", `${p.id}-form`)}${attr("action", p.callbackUrl)} method="POST"${attr(
        "data-webauthn-options",
        w.optionsUrl,
      )}${attr("data-webauthn-conditional", w.conditionalUI)}${attr("data-webauthn-messages", webauthnMessagesAttribute(language))}>${fields}${Object.entries(
        w.formFields,
      ).map(([key, input]) =>
        credentialField(p, key, input, label, true),
      )}<div class="error" role="status" data-webauthn-status hidden></div><button${attr("id", `submitButton-${p.id}`)} type="submit" data-webauthn-action="authenticate" formnovalidate>${text(language, "signin.submit", { provider: p.name })}</button><button type="submit" data-webauthn-action="register">${text(language, "signin.register", { provider: p.name })}</button></form></div>`
    }
    default: {
      const unreachable: never = p.type
      return unreachable
    }
  }
}

/** Consecutive OAuth/OIDC buttons share a group; every form provider is a group of its own. */
function groups(props: SignInPageProps): SafeHtml[][] {
  const out: SafeHtml[][] = []
  const label = labeller(props.providers, props.language ?? english)
  let previousWasButton = false
  for (const [index, provider] of props.providers.entries()) {
    const block = providerBlock(provider, index, props, label)
    if (!block) continue
    const isButton = provider.type === "oauth" || provider.type === "oidc"
    const last = out[out.length - 1]
    if (isButton && previousWasButton && last) last.push(block)
    else out.push([block])
    previousWasButton = isButton
  }
  return out
}

/**
 * The built-in sign-in page, in Auth.js' markup: an optional error box, then one block per provider with an `<hr>`
 * between groups. OAuth/OIDC and e-mail forms post to the provider's `signinUrl`, credentials forms to its
 * `callbackUrl`; each carries the hidden `csrfToken` (and `callbackUrl`). Every value is escaped,
 * colours and logos are validated, and credential inputs get only a fixed set of attributes. Fields
 * that several forms would label alike ("Email") are labelled by their method. No inline `style`
 * attribute: the page's `<style>` and `<script>` carry `nonce`.
 *
 * @example
 * renderSignIn({ providers, csrfToken, callbackUrl: "https://app.example/", theme: {}, nonce })
 */
export function renderSignIn(props: SignInPageProps): string {
  const sections = groups(props).map((blocks, i) => html`${i > 0 ? html`<hr>` : null}${blocks}`)
  const language = props.language ?? english
  const message =
    props.error === "RateLimited" && props.retryIn
      ? rateLimitMessage(props.retryIn * 60, language)
      : signInErrorMessage(props.error ?? "", language)
  const error = props.error ? html`<div class="error" role="alert"><p>${message}</p></div>` : null
  const webauthn = props.webauthnScriptUrl && props.providers.some((p) => p.type === "webauthn" && p.webauthn)
  return layout({
    title: text(language, "signin.title"),
    theme: props.theme,
    language,
    nonce: props.nonce,
    css: props.providers.map(buttonCss).join(""),
    body: html`<div class="signin"><div class="card">${error}${sections}</div></div>`,
    ...(webauthn ? { head: html`<script${attr("src", props.webauthnScriptUrl)}${attr("nonce", props.nonce)} defer></script>` } : {}),
  })
}

/** The origins of the page's images (provider and theme logos on another origin), for its policy. */
export function signInImageOrigins(props: Pick<SignInPageProps, "providers" | "theme">): string[] {
  return imageOrigins([
    props.theme.logo,
    ...props.providers.map((p) => (p.type === "oauth" || p.type === "oidc" ? p.style?.logo : undefined)),
  ])
}
