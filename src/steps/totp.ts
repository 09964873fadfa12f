/**
 * A TOTP second factor (RFC 6238) as a flow step, plus the enrolment helper.
 *
 * @example Credentials sign-in with TOTP, in a few lines of the app's own code:
 * ```ts
 * import { credentialsFlow, extendFlow } from "authchart"
 * import { totpStep } from "authchart/steps/totp"
 * const flows = [extendFlow(credentialsFlow, [totpStep({ secretFor: (user) => db.totpSecret(user.id) })])]
 * ```
 * Without `secretFor`, the step asks for the secret the user enrolled on the account pages
 * (`<basePath>/factors`, docs/second-factors.md): `extendFlow(credentialsFlow, [totpStep()])`.
 * Verification accepts the current 30-second step and one on either side, counts wrong codes per user
 * on the server (`maxAttempts` within `attemptWindow`, across flows and instances), and refuses a code
 * whose time step was already used by the same user (RFC 6238 §5.2): a claim in the config's
 * server-state port, so with `RedisServerState` a code used on one instance is refused on every other.
 */
import { createHmac, randomBytes } from "node:crypto"
import type { Awaitable, User } from "../types.js"
import { stateKey } from "../runtime/limits/server-state.js"
import { escapeHtml } from "../runtime/http/pages/html.js"
import { english, type Language, text } from "../messages/text.js"
import {
  type StepArgs,
  type StepDefinition,
  type StepPageContent,
  type StepPageProps,
  type StepVerdict,
  defineStep,
} from "../runtime/engine/extend-flow.js"

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

/** RFC 4648 base32 (no padding). */
export function base32Encode(bytes: Uint8Array): string {
  // one char a byte of a buffer read as latin1: no string per character
  const out = Buffer.allocUnsafe(Math.ceil((bytes.length * 8) / 5))
  let length = 0
  let bits = 0
  let value = 0
  for (let i = 0; i < bytes.length; i++) {
    value = ((value << 8) | (bytes[i] as number)) & 0xfff
    bits += 8
    while (bits >= 5) {
      out[length++] = ALPHABET_CODES[(value >>> (bits - 5)) & 31] as number
      bits -= 5
    }
  }
  if (bits > 0) out[length++] = ALPHABET_CODES[(value << (5 - bits)) & 31] as number
  return out.toString("latin1", 0, length)
}

const ALPHABET_CODES = Uint8Array.from(ALPHABET, (char) => char.charCodeAt(0))

/** Each ASCII character's 5-bit value in base32 (either case); SKIP for the separators left out; INVALID for the rest. */
const SKIP = -2
const INVALID = -1
const BASE32_VALUES = (() => {
  const values = new Int8Array(128).fill(INVALID)
  for (let i = 0; i < ALPHABET.length; i++) {
    values[ALPHABET.charCodeAt(i)] = i
    values[ALPHABET.toLowerCase().charCodeAt(i)] = i
  }
  for (const separator of "\t\n\v\f\r =-") values[separator.charCodeAt(0)] = SKIP
  return values
})()

/**
 * RFC 4648 base32 to bytes: either case, whitespace, `=` and `-` left out, trailing bits dropped; a
 * `TypeError` for any other character. ASCII text is read by table, other text as before by the general path.
 */
export function base32Decode(text: string): Buffer {
  const out = Buffer.allocUnsafe((text.length * 5) >>> 3)
  let length = 0
  let bits = 0
  let value = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 128) return base32DecodeText(text)
    const digit = BASE32_VALUES[code] ?? INVALID
    if (digit === SKIP) continue
    if (digit === INVALID) throw new TypeError("Invalid base32 secret.")
    value = ((value << 5) | digit) & 0xfff
    bits += 5
    if (bits >= 8) {
      out[length++] = (value >>> (bits - 8)) & 255
      bits -= 8
    }
  }
  return out.subarray(0, length)
}

/** {@link base32Decode} for text with non-ASCII characters (Unicode whitespace, letters that upper-case to ASCII). */
function base32DecodeText(text: string): Buffer {
  const clean = text.replace(/[\s=-]/g, "").toUpperCase()
  const out: number[] = []
  let bits = 0
  let value = 0
  for (const char of clean) {
    const index = ALPHABET.indexOf(char)
    if (index === -1) throw new TypeError("Invalid base32 secret.")
    value = (value << 5) | index
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

/** The HOTP value (RFC 4226 §5.3: HMAC-SHA1 of the 8-byte counter, dynamic truncation) of `counter`, below 10^`digits`. */
function hotpValue(secret: Buffer, counter: number, digits: number): number {
  const message = Buffer.alloc(8)
  message.writeUInt32BE(Math.floor(counter / 2 ** 32), 0)
  message.writeUInt32BE(counter >>> 0, 4)
  const mac = createHmac("sha1", secret).update(message).digest()
  return (mac.readUInt32BE((mac[19] as number) & 0x0f) & 0x7fffffff) % 10 ** digits
}

/** The HOTP value (RFC 4226) of `counter`, `digits` long. */
export function hotp(secret: Buffer, counter: number, digits = 6): string {
  return String(hotpValue(secret, counter, digits)).padStart(digits, "0")
}

/** The TOTP time step (RFC 6238, 30 s) of a moment in milliseconds. */
export function timeStep(now: number, period = 30): number {
  return Math.floor(now / 1000 / period)
}

/** The code for `now` (for tests and enrolment screens). */
export function totpCode(secret: string, now = Date.now()): string {
  return hotp(base32Decode(secret), timeStep(now))
}

/**
 * Checks a code against the steps `now - window … now + window`; returns the matching step or null.
 * Compares in constant time.
 */
export function verifyTotp(secret: string, code: string, now = Date.now(), window = 1): number | null {
  if (!SIX_DIGITS.test(code)) return null
  const current = timeStep(now)
  const given = Number(code)
  // every step of the window is computed and compared as a whole number (no early exit, no digit by digit)
  const decoded = base32Decode(secret)
  let match: number | null = null
  for (let step = current - window; step <= current + window; step++) if (hotpValue(decoded, step, 6) === given) match = step
  // the user's secret is not left in the process beyond its check
  decoded.fill(0)
  return match
}

const SIX_DIGITS = /^\d{6}$/

/** What `createTotpEnrollment` returns: the secret to store, the URI and its QR code. */
export interface TotpEnrollment {
  /** Base32 secret to store for the user (keep it encrypted at rest). */
  secret: string
  /** `otpauth://totp/…` URI for authenticator apps. */
  uri: string
  /** The URI as a QR code, SVG markup (needs the optional `qrcode` package). */
  qrSvg(): Promise<string>
}

/** A new TOTP secret for a user (or `secret`, an enrolment shown again), its `otpauth://` URI and a QR code. */
export function createTotpEnrollment(options: { accountName: string; issuer: string; secret?: string }): TotpEnrollment {
  const secret = options.secret ?? base32Encode(randomBytes(20))
  const label = `${encodeURIComponent(options.issuer)}:${encodeURIComponent(options.accountName)}`
  const params = new URLSearchParams({ secret, issuer: options.issuer, algorithm: "SHA1", digits: "6", period: "30" })
  const uri = `otpauth://totp/${label}?${params}`
  return {
    secret,
    uri,
    async qrSvg() {
      let qrcode: { toString(text: string, options: { type: "svg" }): Promise<string> }
      try {
        qrcode = (await import("qrcode")) as never
      } catch {
        throw new Error("QR codes need the optional package: npm install qrcode")
      }
      return qrcode.toString(uri, { type: "svg" })
    },
  }
}

/**
 * Remembers used time steps per user so a code cannot be used twice within its window.
 * @deprecated Used codes go through the config's `serverState` port by default (shared across
 * instances with `RedisServerState`); pass `usedCodes` only to keep them somewhere else.
 */
export interface UsedCodes {
  /** True when the step was not yet used (and marks it used). */
  claim(userKey: string, step: number): Awaitable<boolean>
}

/**
 * An in-process registry of used steps (one instance only).
 * @deprecated The default is now the config's `serverState` port; this registry is not shared between
 * instances. Remove the `usedCodes` option to use the port.
 */
export function memoryUsedCodes(): UsedCodes {
  const used = new Map<string, number>()
  return {
    claim(userKey, step) {
      const last = used.get(userKey)
      if (last !== undefined && step <= last) return false
      if (last === undefined && used.size >= USED_CODES_SWEEP_AT) forgetStale(used, step)
      used.set(userKey, step)
      return true
    },
  }
}

/** How many users {@link memoryUsedCodes} holds before it forgets the ones whose last step is stale. */
export const USED_CODES_SWEEP_AT = 10_000
/**
 * Steps back from a claim beyond which a remembered step can no longer block a code. A matched step is
 * within `window` of its now, so a later one is at least `step - 2 × window`: this holds for any window
 * up to 60 steps (30 minutes either side).
 */
const STALE_STEPS = 121

/** Drops every user whose last used step is too old to match a code now (`step` is a step just matched). */
function forgetStale(used: Map<string, number>, step: number): void {
  for (const [key, last] of used) if (last < step - STALE_STEPS) used.delete(key)
}

/** Options of `totpStep`. */
export interface TotpStepOptions {
  /**
   * The user's base32 TOTP secret, or null when they have none (the step is then skipped). Default: the
   * secret the user enrolled on the account pages (`<basePath>/factors`), kept sealed in the server-state port.
   */
  secretFor?: (user: User) => Awaitable<string | null | undefined>
  /** Wrong codes allowed per user within `attemptWindow` before the step refuses. Default 5. */
  maxAttempts?: number
  /** Seconds the wrong codes of a user are counted for. Default 900 (15 minutes). */
  attemptWindow?: number
  /** Steps accepted on either side of now. Default 1. */
  window?: number
  /**
   * Where used steps are remembered. Default: the config's `serverState` port.
   * @deprecated Leave it out; the port is shared across instances when it is `RedisServerState`.
   */
  usedCodes?: UsedCodes
  /** The page; default {@link defaultTotpPage}: a 6-digit field named `code` in the themed card. */
  page?: (props: StepPageProps) => StepPageContent
  /** Clock, for tests. */
  now?: () => number
}

/**
 * The default TOTP page: in the sign-in page's themed card (with the message of a wrong code, the
 * attempts left and a cancel link), one 6-digit field named `code`.
 */
export function defaultTotpPage(props: StepPageProps): StepPageContent {
  const language = props.language ?? english
  let page = totpPages.get(language)
  if (!page) {
    page = Object.freeze({
      title: text(language, "totp.title"),
      submitLabel: text(language, "totp.submit"),
      fields: `<p class="hint">${escapeHtml(text(language, "totp.hint"))}</p><label for="totp-code">${escapeHtml(text(language, "totp.label"))}</label><input id="totp-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus>`,
    })
    // one page per language of the config: bounded by it
    totpPages.set(language, page)
  }
  return page
}

const totpPages = new WeakMap<Language, StepPageContent>()

const retry = (language: Language, key: "totp.invalid" | "totp.used"): StepVerdict => ({ result: "retry", message: text(language, key) })
/** A matching code passes when its time step was not used before. */
const claimed = (fresh: boolean, language: Language): StepVerdict => fresh || retry(language, "totp.used")

/** The TOTP step: after sign-in identifies the user, before the session is issued. */
export function totpStep(options: TotpStepOptions = {}): StepDefinition {
  const secretOf = (args: StepArgs) => (options.secretFor ? options.secretFor(args.user) : args.factors.activeTotpSecret())
  const now = options.now ?? (() => Date.now())
  const window = options.window ?? 1
  /** The code against the user's secret; a matching code's time step is then claimed once. */
  const checkCode = async (
    args: StepArgs & { params: Readonly<Record<string, unknown>> },
    secret: string | null | undefined,
  ): Promise<StepVerdict> => {
    const { user, params, serverState, language } = args
    const code = typeof params.code === "string" ? params.code.trim() : ""
    const at = now()
    const step = secret ? verifyTotp(secret, code, at, window) : null
    if (step === null) return retry(language, "totp.invalid")
    const userKey = String(user.id ?? user.email)
    if (options.usedCodes) return claimed(await options.usedCodes.claim(userKey, step), language)
    // the code stays acceptable until its step leaves the window: claim it that long
    const validFor = (step + window + 1) * 30_000 - at
    return claimed(await serverState.claim(stateKey("totp", userKey, step), validFor), language)
  }
  return defineStep({
    id: "totp",
    maxAttempts: options.maxAttempts ?? 5,
    ...(options.attemptWindow !== undefined ? { attemptWindow: options.attemptWindow } : {}),
    when: async (args) => Boolean(await secretOf(args)),
    page: options.page ?? defaultTotpPage,
    submit: async (args) => checkCode(args, await secretOf(args)),
  })
}
