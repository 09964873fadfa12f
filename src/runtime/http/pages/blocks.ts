/**
 * The built-in flows' blocks on the sign-in page (`FlowDeclarations.signInBlock`), in Auth.js' markup:
 * an OAuth/OIDC button posting to `/signin/<id>`, the magic-link address form, a credentials form
 * posting to `/callback/<id>`, and the passkey form its script drives.
 */
import type { CredentialInput } from "../../../types/providers.js"
import type { DeclaredProvider, SignInBlock, SignInBlockPage, SignInBlockUrls } from "../../../types/flow-declarations.js"
import { en } from "../../../messages/en.js"
import { type Language, english, text } from "../../../messages/text.js"
import { attr, html, type SafeHtml } from "./html.js"
import { webauthnMessagesAttribute } from "./webauthn-client.js"

/** A provider as the sign-in page shows it: resolved URLs, no secrets. */
export interface PageProvider {
  id: string
  name: string
  /** The provider's `type`: a built-in one draws its built-in block unless `block` is given. */
  type: string
  /** `{origin}{basePath}/signin/{id}`. */
  signinUrl: string
  /** `{origin}{basePath}/callback/{id}`. */
  callbackUrl: string
  style?: { logo?: string; bg?: string; text?: string; brandColor?: string }
  /** Fields of a credentials provider. */
  credentials?: Record<string, CredentialInput>
  /** A WebAuthn provider with `formFields`: its form, options URL and conditional UI. */
  webauthn?: { optionsUrl: string; formFields: Record<string, CredentialInput>; conditionalUI: boolean }
  /** The block its flow declares; without one, the built-in block of its `type` (none for another type). */
  block?: SignInBlock | null
}

const INPUT_TYPES = new Set(["text", "password", "email", "tel", "number", "url", "search", "date", "hidden"])

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined)
const int = (v: unknown): number | undefined => {
  const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : undefined
}

/**
 * The label a field is shown with before any method is added: its `label`, else its name. The label
 * Auth.js' defaults give an email field ("Email") is the catalogue's, shown in the page's language.
 */
function labelOf(key: string, input: CredentialInput, language: Language): string {
  const label = str(input.label) ?? key
  return label === en["signin.email.label"] ? text(language, "signin.email.label") : label
}

function credentialField(
  p: Pick<PageProvider, "id">,
  key: string,
  input: CredentialInput,
  page: SignInBlockPage,
  language: Language,
  formField = false,
): SafeHtml {
  const id = `input-${key}-for-${p.id}-provider`
  const type = str(input.type)
  return html`<div><label class="section-header" for="${id}">${page.label(labelOf(key, input, language))}</label><input${[
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

const submit = (name: string, language: Language): SafeHtml =>
  html`<button id="submitButton" type="submit">${text(language, "signin.submit", { provider: name })}</button>`

/** An OAuth/OIDC provider: one button posting to `/signin/<id>`, with its logo; buttons side by side share a group. */
export function oauthBlock(p: PageProvider, language: Language = english): SignInBlock {
  return {
    button: true,
    images: [p.style?.logo],
    render: ({ hidden, index, imageUrl }) => {
      const logo = imageUrl(p.style?.logo)
      return html`<div class="provider"><form${attr("action", p.signinUrl)} method="POST">${hidden}<button type="submit" class="button provider-button-${index}">${
        logo ? html`<img loading="lazy" height="24" width="24" alt=""${attr("src", logo)}>` : null
      }<span>${text(language, "signin.submit", { provider: p.name })}</span></button></form></div>`
    },
  }
}

/** Email magic links: the address form, posting to `/signin/<id>`. */
export function emailBlock(p: PageProvider, language: Language = english): SignInBlock {
  const emailLabel = text(language, "signin.email.label")
  return {
    labels: [emailLabel],
    method: text(language, "signin.method.email"),
    render: ({ hidden, label, email }) => {
      const id = `input-email-for-${p.id}-provider`
      return html`<div class="provider"><form${attr("action", p.signinUrl)} method="POST">${hidden}<label class="section-header"${attr("for", id)}>${label(emailLabel)}</label><input${attr("id", id)} autofocus type="email" name="email"${attr("value", email)}${attr("placeholder", text(language, "signin.email.placeholder"))} required>${submit(p.name, language)}</form></div>`
    },
  }
}

/** A credentials provider: its fields, posted to `/callback/<id>`. */
export function credentialsBlock(p: PageProvider, language: Language = english): SignInBlock {
  const fields = Object.entries(p.credentials ?? {})
  const password = fields.some(([, input]) => input.type === "password")
  return {
    labels: fields.map(([key, input]) => labelOf(key, input, language)),
    method: password ? text(language, "signin.method.password") : p.name,
    render: (page) =>
      html`<div class="provider"><form${attr("action", p.callbackUrl)} method="POST">${page.hidden}${fields.map(([key, input]) =>
        credentialField(p, key, input, page, language),
      )}${submit(p.name, language)}</form></div>`,
  }
}

/** A passkey provider with `formFields`: its form, driven by the passkey script (none without `formFields`). */
export function webauthnBlock(p: PageProvider, scriptUrl: string | undefined, language: Language = english): SignInBlock | null {
  const w = p.webauthn
  if (!w) return null
  const fields = Object.entries(w.formFields)
  return {
    labels: fields.map(([key, input]) => labelOf(key, input, language)),
    method: text(language, "signin.method.passkey"),
    ...(scriptUrl ? { scripts: [scriptUrl], connect: [new URL(scriptUrl).origin] } : {}),
    render: (page) =>
      html`<div class="provider"><form${attr("id", `${p.id}-form`)}${attr("action", p.callbackUrl)} method="POST"${attr(
        "data-webauthn-options",
        w.optionsUrl,
      )}${attr("data-webauthn-conditional", w.conditionalUI)}${attr("data-webauthn-messages", webauthnMessagesAttribute(language))}>${page.hidden}${fields.map(
        ([key, input]) => credentialField(p, key, input, page, language, true),
      )}<div class="error" role="status" data-webauthn-status hidden></div><button${attr("id", `submitButton-${p.id}`)} type="submit" data-webauthn-action="authenticate" formnovalidate>${text(language, "signin.submit", { provider: p.name })}</button><button type="submit" data-webauthn-action="register">${text(language, "signin.register", { provider: p.name })}</button></form></div>`,
  }
}

/**
 * The built-in block of a page provider that carries none of its own, by its `type` (what
 * `renderSignIn`'s callers that build `PageProvider`s by hand get); another type has none.
 */
export function builtInBlock(p: PageProvider, scriptUrl: string | undefined, language: Language): SignInBlock | null {
  if (p.type === "oauth" || p.type === "oidc") return oauthBlock(p, language)
  if (p.type === "email") return emailBlock(p, language)
  if (p.type === "credentials") return credentialsBlock(p, language)
  if (p.type === "webauthn") return webauthnBlock(p, scriptUrl, language)
  return null
}

/** What every built-in block is drawn from: the provider's id, name, type, style and route URLs. */
function pageProvider(provider: DeclaredProvider, urls: SignInBlockUrls): PageProvider {
  return {
    id: provider.id,
    name: provider.name,
    type: provider.type,
    signinUrl: urls.signinUrl,
    callbackUrl: urls.callbackUrl,
    ...(provider.style ? { style: provider.style } : {}),
  }
}

/** The OAuth/OIDC flow's block: the provider's button. */
export const oauthSignInBlock = (provider: DeclaredProvider, urls: SignInBlockUrls, language: Language): SignInBlock =>
  oauthBlock(pageProvider(provider, urls), language)

/** The magic-link flow's block: the address form. */
export const emailSignInBlock = (provider: DeclaredProvider, urls: SignInBlockUrls, language: Language): SignInBlock =>
  emailBlock(pageProvider(provider, urls), language)

/** The credentials flow's block: the provider's `credentials` fields (none for a provider of another shape). */
export function credentialsSignInBlock(provider: DeclaredProvider, urls: SignInBlockUrls, language: Language): SignInBlock {
  const { config } = provider
  const credentials = config.type === "credentials" ? config.credentials : {}
  return credentialsBlock({ ...pageProvider(provider, urls), credentials }, language)
}

/** The passkey flow's block: a form only with `formFields` (as in Auth.js), driven by the passkey script. */
export function webauthnSignInBlock(provider: DeclaredProvider, urls: SignInBlockUrls, language: Language): SignInBlock | null {
  const { config } = provider
  if (config.type !== "webauthn" || !config.formFields) return null
  const optionsUrl = `${urls.authUrl}/webauthn-options/${encodeURIComponent(provider.id)}`
  const webauthn = { optionsUrl, formFields: config.formFields, conditionalUI: config.enableConditionalUI === true }
  return webauthnBlock({ ...pageProvider(provider, urls), webauthn }, `${urls.authUrl}/webauthn-script`, language)
}
