/**
 * Extra steps' pages: what the runtime tells them, what they answer, and the themed card they are drawn in.
 *
 * @module
 */
import type { Theme } from "../../../types.js"
import { english, type Language, plural, text } from "../../../messages/text.js"
import { escapeHtml, html, layoutParts, type SafeHtml } from "./html.js"
import type { FlowPageProps } from "../../../types/flow.js"
export type { FlowPageProps }

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
      /** The card's heading and the page title. Default "One more step" (in the page's language). */
      readonly title?: string
      readonly fields: string | SafeHtml
      /** The submit button's text. Default "Continue" (in the page's language). */
      readonly submitLabel?: string
    }
  | { readonly document: string }

/**
 * A step's page as a whole document: `content` in the sign-in page's themed card, or the step's own
 * document. `extendFlow` renders every step page with it; a flow of your own can use it in its `pages`.
 *
 * @example
 * ```ts
 * const pages = { confirm: (props: FlowPageProps) => renderStepPage(props, { title: "Confirm", fields: `<input name="code" required>` }) }
 * ```
 * `props` are the page's {@link FlowPageProps}; with a `maxAttempts` (a step's {@link StepPageProps}) the card
 * also says how many attempts are left after a wrong answer.
 */
export function renderStepPage(props: FlowPageProps & { readonly maxAttempts?: number }, content: StepPageContent): string {
  if (typeof content === "object" && "document" in content) return content.document
  const language = props.language ?? english
  const title = typeof content === "string" ? undefined : content.title
  const submitLabel = typeof content === "string" ? undefined : content.submitLabel
  const template = cardTemplate(
    title ?? text(language, "step.title"),
    typeof content === "string" ? content : content.fields,
    submitLabel ?? text(language, "step.submit"),
    props.step,
    props.theme,
    language,
  )
  return fillCard(template, props, language)
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
  /** The language the card is drawn in. Default English. */
  language?: Language
}

/**
 * A step card's document for one title, fields, button, step and theme, cut around what varies per
 * response (nonce, message, attempts left, form target, CSRF token, cancel link). Every part is escaped
 * or validated when it is made, as `html` and `layout` do.
 */
interface CardTemplate {
  readonly title: string
  readonly fields: string
  readonly submitLabel: string
  readonly step: string
  readonly colorScheme: string | undefined
  readonly logo: string | undefined
  readonly brandColor: string | undefined
  readonly buttonText: string | undefined
  readonly language: Language
  /** Up to the nonce. */
  readonly open: string
  /** After the nonce: the style, title, body start and the card's heading, up to the message. */
  readonly heading: string
  /** After the action, through the hidden step field, up to the CSRF token's value. */
  readonly afterAction: string
  /** After the CSRF token: the app's fields, the button, up to the cancel link's URL. */
  readonly afterCsrf: string
  readonly close: string
}

/**
 * Templates made so far, by the app's fields (a step's page usually answers the same fields every
 * time). An entry is used only when every input it was made from is the same (a theme is compared by
 * its values); another title, button, step or theme for the same fields replaces it. Bounded: pages
 * whose fields vary per request (an app interpolating request data) start the map again when it is full.
 */
const templates = new Map<string, CardTemplate>()
const MAX_TEMPLATES = 64

/** How many card templates are kept (for tests: the bound holds). */
export const keptCardTemplates = (): number => templates.size

function cardTemplate(
  title: string,
  fields: string | SafeHtml,
  submitLabel: string,
  step: string,
  theme: Theme,
  language: Language,
): CardTemplate {
  const markup = typeof fields === "string" ? fields : fields.toString()
  const kept = templates.get(markup)
  if (
    kept !== undefined &&
    kept.title === title &&
    kept.submitLabel === submitLabel &&
    kept.step === step &&
    kept.colorScheme === theme.colorScheme &&
    kept.logo === theme.logo &&
    kept.brandColor === theme.brandColor &&
    kept.buttonText === theme.buttonText &&
    kept.language === language
  ) {
    return kept
  }
  const { open, afterNonce, close } = layoutParts({ title, theme, language })
  const made: CardTemplate = {
    title,
    fields: markup,
    submitLabel,
    step,
    colorScheme: theme.colorScheme,
    logo: theme.logo,
    brandColor: theme.brandColor,
    buttonText: theme.buttonText,
    language,
    open,
    heading: `${afterNonce}${html`<div class="step"><div class="card"><h1>${title}</h1>`}`,
    afterAction: html`"><input type="hidden" name="step" value="${step}"><input type="hidden" name="csrfToken" value="`.toString(),
    // the app's own markup, as is (it escapes what it interpolates)
    afterCsrf: `">${markup}${html`<button id="submitButton" type="submit">${submitLabel}</button></form><p class="cancel"><a href="`}`,
    close: `">${escapeHtml(text(language, "step.cancel"))}</a></p></div></div>${close}`,
  }
  if (!kept && templates.size >= MAX_TEMPLATES) templates.clear()
  templates.set(markup, made)
  return made
}

/** What varies per response of a step card. */
type CardValues = Pick<StepCardProps, "nonce" | "message" | "attempt" | "maxAttempts" | "action" | "csrfToken" | "cancelUrl">

/** The card's document: `template` with this response's values, each escaped. */
function fillCard(template: CardTemplate, values: CardValues, language: Language): string {
  const message = values.message ? `<div class="error" role="alert"><p>${escapeHtml(String(values.message))}</p></div>` : ""
  return (
    template.open +
    escapeHtml(String(values.nonce)) +
    template.heading +
    message +
    attemptsLeft(values.attempt, values.maxAttempts, language) +
    '<form method="POST" action="' +
    escapeHtml(String(values.action)) +
    template.afterAction +
    escapeHtml(String(values.csrfToken)) +
    template.afterCsrf +
    escapeHtml(String(values.cancelUrl)) +
    template.close
  )
}

function attemptsLeft(attempt: number, maxAttempts: number | undefined, language: Language): string {
  if (attempt <= 0 || maxAttempts === undefined) return ""
  const left = Math.max(0, maxAttempts - attempt)
  return `<p class="hint" data-attempts-left="${left}">${escapeHtml(plural(language, "step.attemptsLeft", left))}</p>`
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
  const language = props.language ?? english
  return fillCard(cardTemplate(props.title, props.fields, props.submitLabel, props.step, props.theme, language), props, language)
}
