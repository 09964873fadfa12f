import { AuthError } from "../errors.js"
import type { LoggerInstance, WarningCode } from "../types.js"

const red = "\x1b[31m"
const yellow = "\x1b[33m"
const grey = "\x1b[90m"
const reset = "\x1b[0m"

/** Keys whose values never reach a log line, at any depth. */
const SECRET_KEY = /secret|password|token|verifier|nonce|code|challenge|cookie|authorization|credential/i

/** A copy of `value` with secret-looking fields replaced, safe to print. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== "object") return value
  if (value instanceof Error) return { name: value.name, message: value.message }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) ? "[redacted]" : redact(v, depth + 1)
  }
  return out
}

function defaultError(error: AuthError | Error): void {
  const name = error instanceof AuthError ? error.type : error.name
  console.error(`${red}[auth][error]${reset} ${name}: ${error.message}`)
  const cause = error.cause as { err?: unknown } | undefined
  if (cause && typeof cause === "object") {
    const { err, ...details } = cause
    if (err instanceof Error) console.error(`${red}[auth][cause]${reset}: ${err.stack ?? err.message}`)
    if (Object.keys(details).length > 0) {
      console.error(`${red}[auth][details]${reset}: ${JSON.stringify(redact(details), null, 2)}`)
    }
  }
}

function defaultWarn(code: WarningCode): void {
  console.warn(`${yellow}[auth][warn][${code}]${reset}`)
}

function defaultDebug(message: string, metadata?: unknown): void {
  console.debug(`${grey}[auth][debug]:${reset} ${message}`, JSON.stringify(redact(metadata), null, 2))
}

const noop = (): void => {}

/**
 * The logger for one config: the user's methods where given, the defaults elsewhere; debug is silent
 * unless `debug` is on. A throwing user logger never breaks a request.
 */
export function createLogger(user: Partial<LoggerInstance> | undefined, debug: boolean): LoggerInstance {
  const error = user?.error ?? defaultError
  const warn = user?.warn ?? defaultWarn
  const dbg = debug ? (user?.debug ?? defaultDebug) : noop
  return Object.freeze({
    error: (e: AuthError | Error) => guard(() => error(e)),
    warn: (code: WarningCode) => guard(() => warn(code)),
    debug: (message: string, metadata?: unknown) => guard(() => dbg(message, redact(metadata))),
  })
}

function guard(fn: () => void): void {
  try {
    fn()
  } catch {
    // a broken logger must not break the request
  }
}
