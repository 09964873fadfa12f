import type { Theme } from "../../../types.js"
import type { MessageKey } from "../../../messages/en.js"
import { english, type Language, plural, text } from "../../../messages/text.js"
import type { SignInBlock } from "../../../types/flow-declarations.js"
import { type PageProvider, builtInBlock } from "./blocks.js"
import { attr, cssColor, html, imageOrigins, imageUrl, layout, type SafeHtml } from "./html.js"

export type { PageProvider }

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

/** A provider with the block the page draws for it (its flow's, else the built-in one of its type). */
type Drawn = { readonly provider: PageProvider; readonly block: SignInBlock }

function drawn(props: Pick<SignInPageProps, "providers" | "webauthnScriptUrl" | "language">): Drawn[] {
  const out: Drawn[] = []
  const language = props.language ?? english
  for (const provider of props.providers) {
    const block = provider.block === undefined ? builtInBlock(provider, props.webauthnScriptUrl, language) : provider.block
    if (block) out.push({ provider, block })
  }
  return out
}

/** Field labels as shown: a label that more than one form on the page uses gets its form's method. */
type Labeller = (d: Drawn, label: string) => string

function labeller(blocks: readonly Drawn[], language: Language): Labeller {
  const seen = new Map<string, Set<string>>()
  for (const { provider, block } of blocks) {
    for (const label of block.labels ?? []) {
      const key = label.trim().toLowerCase()
      seen.set(key, (seen.get(key) ?? new Set()).add(provider.id))
    }
  }
  return ({ provider, block }, label) =>
    (seen.get(label.trim().toLowerCase())?.size ?? 0) > 1
      ? text(language, "signin.labelFor", { label, method: block.method ?? provider.name })
      : label
}

function hidden(csrfToken: string, callbackUrl: string): SafeHtml {
  return html`<input type="hidden" name="csrfToken"${attr("value", csrfToken)}>${
    callbackUrl ? html`<input type="hidden" name="callbackUrl"${attr("value", callbackUrl)}>` : null
  }`
}

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

/** Consecutive buttons (OAuth/OIDC) share a group; every form is a group of its own. */
function groups(props: SignInPageProps, blocks: readonly Drawn[]): SafeHtml[][] {
  const out: SafeHtml[][] = []
  const language = props.language ?? english
  const label = labeller(blocks, language)
  const fields = hidden(props.csrfToken, props.callbackUrl)
  let previousWasButton = false
  for (const d of blocks) {
    const index = props.providers.indexOf(d.provider)
    const page = {
      hidden: fields,
      label: (text: string) => label(d, text),
      index,
      imageUrl,
      language,
      ...(props.email ? { email: props.email } : {}),
    }
    const markup = d.block.render(page)
    if (!markup) continue
    const isButton = d.block.button === true
    const last = out[out.length - 1]
    if (isButton && previousWasButton && last) last.push(markup)
    else out.push([markup])
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
  const blocks = drawn(props)
  const sections = groups(props, blocks).map((blocks, i) => html`${i > 0 ? html`<hr>` : null}${blocks}`)
  const language = props.language ?? english
  const message =
    props.error === "RateLimited" && props.retryIn
      ? rateLimitMessage(props.retryIn * 60, language)
      : signInErrorMessage(props.error ?? "", language)
  const error = props.error ? html`<div class="error" role="alert"><p>${message}</p></div>` : null
  const scripts = [...new Set(blocks.flatMap((d) => d.block.scripts ?? []))]
  return layout({
    title: text(language, "signin.title"),
    theme: props.theme,
    language,
    nonce: props.nonce,
    css: props.providers.map(buttonCss).join(""),
    body: html`<div class="signin"><div class="card">${error}${sections}</div></div>`,
    ...(scripts.length > 0
      ? { head: html`${scripts.map((src) => html`<script${attr("src", src)}${attr("nonce", props.nonce)} defer></script>`)}` }
      : {}),
  })
}

/** What the page's policy must allow for its blocks: images (logos) on other origins, and the origins scripts fetch. */
export function signInPolicyOrigins(props: Pick<SignInPageProps, "providers" | "theme" | "webauthnScriptUrl">): {
  images: string[]
  connect: string[]
} {
  const blocks = drawn(props)
  return {
    images: imageOrigins([props.theme.logo, ...blocks.flatMap((d) => d.block.images ?? [])]),
    connect: [...new Set(blocks.flatMap((d) => d.block.connect ?? []))],
  }
}

/** The origins of the page's images (provider and theme logos on another origin), for its policy. */
export function signInImageOrigins(props: Pick<SignInPageProps, "providers" | "theme">): string[] {
  return signInPolicyOrigins(props).images
}
