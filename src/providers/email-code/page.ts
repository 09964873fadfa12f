/**
 * The code page the flow rests on: the sign-in page's themed card with one 6-digit field named `code`.
 */
import { english, escapeHtml, type FlowPageProps, html, markup, renderStepPage, text } from "../../flow/index.js"

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
