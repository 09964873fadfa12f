/**
 * The code page the flow rests on: the sign-in page's themed card with one 6-digit field named `code`.
 */
import {
  type DeclaredProvider,
  english,
  escapeHtml,
  type FlowPageProps,
  html,
  type Language,
  markup,
  renderStepPage,
  type SignInBlock,
  type SignInBlockUrls,
  text,
} from "../../flow/index.js"

/**
 * The provider's block on the sign-in page: an address form posting to `/signin/<id>`. Its label says
 * "a sign-in code" when another form on the page asks for an email too (a magic link: "a sign-in link").
 */
export function codeSignInBlock(provider: DeclaredProvider, urls: SignInBlockUrls, language: Language): SignInBlock {
  const id = `input-email-for-${provider.id}-provider`
  const emailLabel = text(language, "signin.email.label")
  return {
    labels: [emailLabel],
    method: text(language, "signin.method.code"),
    render: ({ hidden, label, email }) =>
      html`<div class="provider"><form action="${urls.signinUrl}" method="POST">${hidden}<label class="section-header" for="${id}">${label(emailLabel)}</label><input id="${id}" autofocus type="email" name="email"${email ? html` value="${email}"` : null} placeholder="${text(language, "signin.email.placeholder")}" autocomplete="email" required><button id="submitButton" type="submit">${text(language, "signin.submit", { provider: provider.name })}</button></form></div>`,
  }
}

/** Renders the code page: where the code went, the field, and the message of a wrong code. */
export function codePage(props: FlowPageProps): string {
  const language = props.language ?? english
  const sent =
    typeof props.data.email === "string"
      ? markup(language, "emailCode.sentTo", { email: html`<strong>${props.data.email}</strong>` })
      : escapeHtml(text(language, "emailCode.sent"))
  return renderStepPage(props, {
    title: text(language, "emailCode.title"),
    submitLabel: text(language, "emailCode.submit"),
    fields: `<p class="hint">${sent}</p><label for="email-code">${escapeHtml(text(language, "emailCode.label"))}</label><input id="email-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7" required autofocus>`,
  })
}
