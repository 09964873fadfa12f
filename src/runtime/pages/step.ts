import type { Theme } from "../../types.js"
import { appMarkup, attr, html, layout, type SafeHtml } from "./html.js"

/** Input of {@link renderStepCard}: the step's form as the app wrote it and what the runtime knows. */
export interface StepCardProps {
  /** Heading of the card and the document's title. */
  title: string
  /** The form's own fields, as the app's markup (the app escapes what it interpolates). */
  fields: string | SafeHtml
  /** Text of the submit button. */
  submitLabel: string
  /** Where the form posts. */
  action: string
  /** The step's id, sent back as the hidden `step` field. */
  step: string
  csrfToken: string
  /** Shown above the form as an alert (e.g. "That code is not valid."). */
  message?: string
  /** Wrong answers so far, and how many the step allows: after the first, the card says how many are left. */
  attempt: number
  maxAttempts?: number
  /** The "Cancel and start over" link: the sign-in page. */
  cancelUrl: string
  theme: Theme
  nonce: string
}

function attemptsLeft(attempt: number, maxAttempts: number | undefined): SafeHtml | null {
  if (attempt <= 0 || maxAttempts === undefined) return null
  const left = Math.max(0, maxAttempts - attempt)
  return html`<p class="hint" data-attempts-left="${left}">${left} ${left === 1 ? "attempt" : "attempts"} left.</p>`
}

/**
 * A step's page in the same themed card as the sign-in page: the heading, the message as an alert, the
 * attempts left after a wrong answer, the form (hidden `step` and `csrfToken`, the app's fields, the
 * submit button) and a "Cancel and start over" link. Everything but `fields` is escaped here.
 *
 * @example
 * renderStepCard({ title: "Two-factor code", fields: `<input name="code">`, submitLabel: "Verify", ...props })
 */
export function renderStepCard(props: StepCardProps): string {
  const fields = typeof props.fields === "string" ? appMarkup(props.fields) : props.fields
  const message = props.message ? html`<div class="error" role="alert"><p>${props.message}</p></div>` : null
  return layout({
    title: props.title,
    theme: props.theme,
    nonce: props.nonce,
    body: html`<div class="step"><div class="card"><h1>${props.title}</h1>${message}${attemptsLeft(props.attempt, props.maxAttempts)}<form method="POST"${attr(
      "action",
      props.action,
    )}><input type="hidden" name="step"${attr("value", props.step)}><input type="hidden" name="csrfToken"${attr(
      "value",
      props.csrfToken,
    )}>${fields}<button id="submitButton" type="submit">${props.submitLabel}</button></form><p class="cancel"><a${attr(
      "href",
      props.cancelUrl,
    )}>Cancel and start over</a></p></div></div>`,
  })
}
