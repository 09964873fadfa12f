/**
 * What a step is: its definition (`defineStep`), what its functions are told (`StepArgs`) and what
 * `submit` answers (`StepVerdict`). `extendFlow` (steps.ts) turns steps into states of a flow's machine.
 */
import { AccessDenied } from "../../errors.js"
import type { Account, Awaitable, User } from "../../types.js"
import type { ServerState } from "../limits/server-state.js"
import type { Language } from "../../messages/text.js"
import type { StepPageContent, StepPageProps } from "../http/pages/step.js"

/** What a step's functions are told about the sign-in in progress. */
export interface StepArgs {
  readonly user: User
  readonly account: Account | null
  readonly isNewUser: boolean
  readonly provider: string
  /** What this step kept so far in this flow (`data` returned by `submit`/`enter`). */
  readonly data: Record<string, unknown>
  /** The request being served (headers, URL), for steps that need it. */
  readonly request: { readonly url: URL; readonly method: string }
  /**
   * The config's server-state port (shared by every instance when it is `RedisServerState`): for steps
   * that need single use or counts across instances, e.g. a one-time code.
   */
  readonly serverState: ServerState
  /** The second factors authchart keeps for this user (src/runtime/factors), for steps that check them. */
  readonly factors: StepFactors
  /**
   * The request's language (`pages.locale` or `Accept-Language`), for a `retry` message in it:
   * `text(language, "totp.invalid")` (`authchart/messages`).
   */
  readonly language: Language
}

/**
 * The user's second factors as a step sees them: kept in the config's server-state port, sealed with its secret.
 * @example const secret = await args.factors.activeTotpSecret() // null when the user has not enrolled TOTP
 */
export interface StepFactors {
  /** The user's active TOTP secret (base32), or null when they have none (or the user has no id). */
  activeTotpSecret(): Promise<string | null>
  /**
   * Spends one of the user's recovery codes (src/runtime/factors/recovery-codes.ts): true once per code,
   * across instances sharing the port, and then `events.recoveryCodeUsed` fires; false for a wrong, used
   * or voided code (or a user without an id).
   */
  redeemRecoveryCode(code: string): Promise<boolean>
}

/** What `submit` answers: pass, stay on the page (with a message), or fail the flow. */
export type StepVerdict =
  | boolean
  | { readonly result: "pass" | "retry" | "fail"; readonly message?: string; readonly data?: Record<string, unknown> }

/** A step of a flow, for {@link defineStep} and `extendFlow`: `run`, or `page` and `submit`. */
export interface StepDefinition {
  /** A state name: letters, digits, `_` and `-`. Also the `step` form field value. */
  readonly id: string
  /** Runs the step only when this says so (default: always). */
  readonly when?: (args: StepArgs) => Awaitable<boolean>
  /** Prepares the step before its page (e.g. fetch the user's TOTP secret); its result is `data`. */
  readonly enter?: (args: StepArgs) => Awaitable<Record<string, unknown> | undefined>
  /** For steps without a page: decide now (true passes; false or a throw fails the flow). */
  readonly run?: (args: StepArgs) => Awaitable<boolean>
  /** For steps that wait for the user: the page's form fields (in the themed card), or a whole page. */
  readonly page?: (props: StepPageProps) => StepPageContent
  /** For steps that wait: check what the form sent. */
  readonly submit?: (args: StepArgs & { params: Readonly<Record<string, unknown>>; attempt: number }) => Awaitable<StepVerdict>
  /**
   * Wrong answers allowed per user within `attemptWindow` before the step refuses. Counted on the server
   * (the config's `serverState`), so neither a new sign-in nor a replayed cookie starts it again; the
   * attempt after the last allowed one is refused even with the right answer. Default 5.
   */
  readonly maxAttempts?: number
  /** Seconds a user's wrong answers are counted for (from the first). Default 900 (15 minutes). */
  readonly attemptWindow?: number
}

/** A failed step: the flow ends, no session. An {@link AccessDenied}, shown as `error=AccessDenied`. */
export class StepFailed extends AccessDenied {}

const STEP_ID = /^[A-Za-z][\w-]{0,40}$/

/** Declares a step (validated). */
export function defineStep(step: StepDefinition): StepDefinition {
  if (!STEP_ID.test(step.id)) throw new TypeError(`defineStep: invalid id "${step.id}"`)
  if (!step.run && !(step.page && step.submit)) {
    throw new TypeError(`defineStep(${step.id}): give either run, or page and submit`)
  }
  return Object.freeze({ ...step })
}
