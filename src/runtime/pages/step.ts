/**
 * Extra steps' pages: what the runtime tells them, what they answer, and the themed card they are drawn in.
 *
 * @module
 */
import type { Theme } from "../../types.js"
import { appMarkup, attr, html, layout, type SafeHtml } from "./html.js"

/**
 * What the runtime tells the renderer of a page a flow rests on (see `FlowDefinition.pages`).
 * @example
 * ```ts
 * const pages = {
 *   code: (props: FlowPageProps) => renderStepPage(props, { title: "Check your email", fields: `<input name="code" autocomplete="one-time-code">` }),
 * }
 * ```
 */
export interface FlowPageProps {
  /** The step's id (the page's name); a form sends it back as the hidden `step` field. */
  readonly step: string
  /** Where the form posts (`/callback/<provider>`); include hidden `step` and `csrfToken` fields. */
  readonly action: string
  readonly csrfToken: string
  /** The message of the last `retry` verdict. */
  readonly message?: string
  /** Wrong answers so far. */
  readonly attempt: number
  readonly data: Record<string, unknown>
  readonly theme: Theme
  /**
   * The response's Content-Security-Policy nonce. A whole page of your own puts it on its `<style>` and
   * `<script>` elements (`<style nonce="…">`); the policy allows no other inline style or script.
   */
  readonly nonce: string
  /** The sign-in page (with the flow's `callbackUrl`): where "cancel and start over" leads. */
  readonly cancelUrl: string
}

/**
 * What a step's `page` is told: the {@link FlowPageProps} and the step's attempt cap.
 * @example const page = ({ attempt, maxAttempts }: StepPageProps) => `<p>${maxAttempts - attempt} tries left</p><input name="code">`
 */
export interface StepPageProps extends FlowPageProps {
  /** Wrong answers allowed before the flow fails (the step's `maxAttempts`). */
  readonly maxAttempts: number
}

/**
 * What a step's `page` returns. A string or `{ fields }`: the inside of the form, shown in the sign-in
 * page's themed card (the runtime adds the heading, message, attempts left, hidden fields, button and
 * cancel link; escape what you interpolate, e.g. with `escapeHtml`). `{ document }`: a whole HTML page
 * of your own instead, served as is (its `<style>`/`<script>` need `nonce`, and its form the hidden
 * `step` and `csrfToken` fields).
 * @example
 * ```ts
 * const fields: StepPageContent = { title: "Terms of use", fields: html`<label><input type="checkbox" name="accept"> I accept</label>` }
 * const whole: StepPageContent = { document: `<!doctype html><title>Confirm</title><form method="POST">…</form>` }
 * ```
 */
export type StepPageContent =
  | string
  | {
      /** The card's heading and the page title. Default "One more step". */
      readonly title?: string
      readonly fields: string | SafeHtml
      /** The submit button's text. Default "Continue". */
      readonly submitLabel?: string
    }
  | { readonly document: string }

/**
 * A step's page as a whole document: `content` in the sign-in page's themed card, or the step's own
 * document. `extendFlow` renders every step page with it; a flow of your own can use it in its `pages`.
 *
 * @example
 * ```ts
 * const pages = { confirm: (props) => renderStepPage({ ...props, maxAttempts: 3 }, { title: "Confirm", fields: `<input name="code" required>` }) }
 * ```
 */
export function renderStepPage(props: StepPageProps, content: StepPageContent): string {
  if (typeof content === "object" && "document" in content) return content.document
  const card = typeof content === "string" ? { fields: content } : content
  return renderStepCard({
    title: card.title ?? "One more step",
    fields: card.fields,
    submitLabel: card.submitLabel ?? "Continue",
    action: props.action,
    step: props.step,
    csrfToken: props.csrfToken,
    attempt: props.attempt,
    maxAttempts: props.maxAttempts,
    cancelUrl: props.cancelUrl,
    theme: props.theme,
    nonce: props.nonce,
    ...(props.message ? { message: props.message } : {}),
  })
}

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
