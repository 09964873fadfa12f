/**
 * Recovery codes as the way out of a second-factor step: a user who lost the device enters one of the
 * ten single-use codes they were given instead of the step's code.
 *
 * @example The TOTP step of credentials sign-in, with recovery codes offered on its page:
 * ```ts
 * import { credentialsFlow, extendFlow } from "authchart"
 * import { recoveryCodeStep } from "authchart/steps/recovery-codes"
 * import { totpStep } from "authchart/steps/totp"
 * const flows = [extendFlow(credentialsFlow, [recoveryCodeStep(totpStep({ secretFor: (user) => db.totpSecret(user.id) }))])]
 * ```
 * The step keeps the wrapped step's id, page and checks, and adds to its page a "Lost your device? Use a
 * recovery code" section with a field named `recoveryCode` and its own button. A recovery code and a
 * code of the wrapped step are answers to one step: they share its attempt cap (`maxAttempts` per user
 * within `attemptWindow`, counted on the server) and the limits of the client. A code that signs in is
 * spent on every instance sharing the config's `serverState` and fires `events.recoveryCodeUsed`. Issue
 * the codes with {@link issueRecoveryCodes} when the user enrols.
 */
import type { AuthConfig } from "../types.js"
import type { StepPageContent, StepPageProps } from "../runtime/http/pages/step.js"
import { type StepArgs, type StepDefinition, type StepVerdict, defineStep } from "../runtime/engine/extend-flow.js"
import { resolvedFor } from "../runtime/front/resolve.js"
import { escapeHtml } from "../runtime/http/pages/html.js"
import { english, type Language, text } from "../messages/text.js"
import * as codes from "../runtime/factors/recovery-codes.js"

/**
 * Issues the user a new set of ten recovery codes and voids the old set. Show the codes once (they are
 * kept only as hashes, in the config's `serverState`); at enrolment of a second factor, and when the
 * user asks for new ones.
 *
 * @example
 * ```ts
 * const codes = await issueRecoveryCodes(authConfig, user.id) // ["7kq2m-x9d4a", …], shown once
 * ```
 */
export function issueRecoveryCodes(config: AuthConfig, userId: string): Promise<string[]> {
  return codes.issueRecoveryCodes(resolvedFor(config), userId)
}

/**
 * How many unused recovery codes the user has left (0 when none were issued).
 *
 * @example
 * ```ts
 * if ((await recoveryCodesLeft(authConfig, user.id)) < 3) showNewCodesHint()
 * ```
 */
export function recoveryCodesLeft(config: AuthConfig, userId: string): Promise<number> {
  return codes.recoveryCodesLeft(resolvedFor(config), userId)
}

/**
 * Spends one of the user's recovery codes: true once per code of the current set, across every
 * instance that shares the config's `serverState`; false for a wrong, used or voided code. The step
 * calls it; an app's own recovery form can too (and must bound its attempts itself).
 *
 * @example
 * ```ts
 * if (await redeemRecoveryCode(authConfig, user.id, form.code)) await disableSecondFactor(user.id)
 * ```
 */
export function redeemRecoveryCode(config: AuthConfig, userId: string, code: string): Promise<boolean> {
  return codes.redeemRecoveryCode(resolvedFor(config), userId, code)
}

/** Options of {@link recoveryCodeStep}. */
export interface RecoveryCodeStepOptions {
  /**
   * The markup added to the wrapped step's page (inside its form): it needs a field named
   * `recoveryCode` and, when the page has required fields of its own, a button with `formnovalidate`.
   * Default {@link recoveryCodeFields}, in the request's language.
   */
  fields?: string
}

/**
 * The default section added to the wrapped step's page, in `language` (English by default): a
 * disclosure "Lost your device? Use a recovery code" with the `recoveryCode` field and a button that
 * skips the page's own required field. A hidden plain submit button comes first, so Enter in the page's
 * own field still has the browser check it.
 *
 * @example recoveryCodeFields() // `<div hidden>…</div><details class="recovery-code"><summary>Lost your device? …`
 */
export function recoveryCodeFields(language: Language = english): string {
  let fields = sections.get(language)
  if (!fields) {
    const say = (key: "recoveryCode.lost" | "recoveryCode.hint" | "recoveryCode.label" | "recoveryCode.submit") =>
      escapeHtml(text(language, key))
    fields = `<div hidden><button type="submit" tabindex="-1"></button></div><details class="recovery-code"><summary>${say("recoveryCode.lost")}</summary><p class="hint">${say("recoveryCode.hint")}</p><label for="recovery-code">${say("recoveryCode.label")}</label><input id="recovery-code" name="recoveryCode" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="32"><button type="submit" name="use" value="recovery-code" formnovalidate>${say("recoveryCode.submit")}</button></details>`
    // one section per language of the config: bounded by it
    sections.set(language, fields)
  }
  return fields
}

const sections = new WeakMap<Language, string>()

/** The wrapped step's page with the recovery-code section added (a whole document of its own stays as it is). */
function withSection(content: StepPageContent, section: string): StepPageContent {
  if (typeof content === "string") return { fields: `${content}${section}` }
  if ("document" in content) return content
  return { ...content, fields: `${content.fields.toString()}${section}` }
}

/**
 * `step` (e.g. `totpStep(…)`) with recovery codes as the alternative answer: same id, same `when`, same
 * attempt cap; a form that sends `recoveryCode` is checked against the user's codes instead of `step`'s
 * `submit`. A user without an id, or without codes left, can only answer `step` itself.
 */
export function recoveryCodeStep(step: StepDefinition, options: RecoveryCodeStepOptions = {}): StepDefinition {
  const { page, submit } = step
  if (!page || !submit) throw new TypeError(`recoveryCodeStep(${step.id}): the step needs a page and a submit.`)
  const redeem = async (args: StepArgs, code: string): Promise<StepVerdict> =>
    (await args.factors.redeemRecoveryCode(code)) || { result: "retry", message: text(args.language, "recoveryCode.invalid") }
  return defineStep({
    ...step,
    page: (props: StepPageProps) => withSection(page(props), options.fields ?? recoveryCodeFields(props.language)),
    submit: (args) => {
      const code = typeof args.params.recoveryCode === "string" ? args.params.recoveryCode.trim() : ""
      return code ? redeem(args, code) : submit(args)
    },
  })
}
