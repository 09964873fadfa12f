/**
 * The code page the flow rests on: the sign-in page's themed card with one 6-digit field named `code`.
 */
import { escapeHtml, type FlowPageProps, renderStepPage } from "../../flow/index.js"

/** Renders the code page: where the code went, the field, and the message of a wrong code. */
export function codePage(props: FlowPageProps): string {
  const email = typeof props.data.email === "string" ? ` to <strong>${escapeHtml(props.data.email)}</strong>` : ""
  return renderStepPage(props, {
    title: "Check your email",
    submitLabel: "Sign in",
    fields: `<p class="hint">We sent a 6-digit code${email}.</p><label for="email-code">Code</label><input id="email-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7" required autofocus>`,
  })
}
