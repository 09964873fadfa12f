/**
 * The logger of one config. Every line it prints is one line: control characters (C0, DEL, C1, U+2028,
 * U+2029) in messages, names, stacks and metadata are written as escapes, so request data (a provider
 * id from the path, a Host header) can neither forge log lines nor send terminal escape sequences.
 * Secret-looking fields never reach a line at all.
 */
import { AuthError } from "../../errors.js"
import type { LoggerInstance, WarningCode } from "../../types.js"
import { configHint } from "./hints.js"

const red = "\x1b[31m"
const yellow = "\x1b[33m"
const grey = "\x1b[90m"
const reset = "\x1b[0m"

/** Keys whose values never reach a log line, at any depth. */
const SECRET_KEY = /secret|password|token|verifier|nonce|code|challenge|cookie|authorization|credential/i

/** C0 controls, DEL, C1 controls, LINE SEPARATOR, PARAGRAPH SEPARATOR. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

/**
 * `text` with every control character written as an escape (`\x0a`, `\x1b`, `\u2028`).
 * @example escapeControls("x\n[auth][error]") // 'x\\x0a[auth][error]'
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0)
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`
  })
}

/** A copy of `value` safe to print: secret-looking fields replaced, control characters in strings escaped. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return escapeControls(value)
  if (depth > 4 || value === null || typeof value !== "object") return value
  if (value instanceof Error) return { name: escapeControls(value.name), message: escapeControls(value.message) }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    out[escapeControls(key)] = SECRET_KEY.test(key) ? "[redacted]" : redact(v, depth + 1)
  }
  return out
}

function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(redact(value), null, 2) ?? ""
  } catch {
    return '"[not serialisable]"'
  }
}

/**
 * A stack as log text: the header (`Name: message`, where request data lives) fully escaped, each frame
 * line escaped on its own.
 */
function stackText(err: Error): string {
  const stack = err.stack ?? `${err.name}: ${err.message}`
  const at = err.message ? stack.indexOf(err.message) : -1
  const firstFrame = stack.indexOf("\n    at ")
  const headEnd = at !== -1 ? at + err.message.length : firstFrame === -1 ? stack.length : firstFrame
  return escapeControls(stack.slice(0, headEnd)) + stack.slice(headEnd).split("\n").map(escapeControls).join("\n")
}

/**
 * The error with control characters in its message escaped, so custom loggers get a safe message too.
 * Only a message that needs it is rewritten (and the stack's copy of it).
 */
function withSafeMessage<E extends Error>(error: E): E {
  const clean = escapeControls(error.message)
  if (clean === error.message) return error
  const stack = typeof error.stack === "string" ? error.stack.replace(error.message, clean) : error.stack
  try {
    Object.defineProperty(error, "message", { value: clean, configurable: true, writable: true })
    Object.defineProperty(error, "stack", { value: stack, configurable: true, writable: true })
  } catch {
    // a frozen error keeps its message; the default logger escapes it when printing
  }
  return error
}

function defaultError(error: AuthError | Error): void {
  const name = error instanceof AuthError ? error.type : error.name
  console.error(`${red}[auth][error]${reset} ${escapeControls(name)}: ${escapeControls(error.message)}`)
  const hint = error instanceof AuthError ? configHint(error) : undefined
  if (hint) console.error(`${red}[auth][help]${reset} ${hint}`)
  const cause = error.cause as { err?: unknown } | undefined
  if (cause && typeof cause === "object") {
    const { err, ...details } = cause
    if (err instanceof Error) console.error(`${red}[auth][cause]${reset}: ${stackText(err)}`)
    if (Object.keys(details).length > 0) console.error(`${red}[auth][details]${reset}: ${jsonOf(details)}`)
  }
}

/** What each warning means and what to do about it. */
const WARNINGS: Readonly<Record<WarningCode, string>> = {
  "debug-enabled": "Debug logging is on. Turn it off in production: debug lines may hold personal data.",
  "csrf-disabled": "CSRF checks are off (skipCSRFCheck). Only do this behind CSRF protection of your own.",
  "env-url-basepath-redundant": "Both AUTH_URL (with a path) and basePath are set: basePath wins.",
  "env-url-basepath-mismatch": "AUTH_URL's path differs from basePath: basePath wins.",
  "experimental-webauthn": "WebAuthn (passkeys) is experimental: its options may change in a minor release.",
  "express-trust-proxy":
    'X-Forwarded-Proto/X-Forwarded-Host arrived, but Express ignores them because "trust proxy" is off, so ' +
    'URLs and cookie names follow the proxy\'s hop. Behind a proxy: app.set("trust proxy", 1), or set AUTH_URL.',
}

function defaultWarn(code: WarningCode): void {
  const text = WARNINGS[code] as string | undefined
  console.warn(`${yellow}[auth][warn][${escapeControls(String(code))}]${reset}${text ? ` ${text}` : ""}`)
}

function defaultDebug(message: string, metadata?: unknown): void {
  console.debug(`${grey}[auth][debug]:${reset} ${escapeControls(message)}`, jsonOf(metadata))
}

const noop = (): void => {}

/**
 * The logger for one config: the user's methods where given, the defaults elsewhere; debug is silent
 * unless `debug` is on. Messages and metadata reach either with control characters escaped and secrets
 * redacted. A throwing user logger never breaks a request.
 */
export function createLogger(user: Partial<LoggerInstance> | undefined, debug: boolean): LoggerInstance {
  const error = user?.error ?? defaultError
  const warn = user?.warn ?? defaultWarn
  const dbg = user?.debug ?? defaultDebug
  return Object.freeze({
    error: (e: AuthError | Error) => guard(() => error(withSafeMessage(e))),
    warn: (code: WarningCode) => guard(() => warn(code)),
    // debug off: nothing to escape or redact (a request logs several debug lines)
    debug: debug ? (message: string, metadata?: unknown) => guard(() => dbg(escapeControls(String(message)), redact(metadata))) : noop,
  })
}

function guard(fn: () => void): void {
  try {
    fn()
  } catch {
    // a broken logger must not break the request
  }
}
