/** The logger interface and its warning codes. Part of the public types, re-exported by `authchart`. */
import type { AuthError } from "../errors.js"

/** The codes `logger.warn` receives; the default logger prints what each means and what to do. */
export type WarningCode =
  | "debug-enabled"
  | "csrf-disabled"
  | "env-url-basepath-redundant"
  | "env-url-basepath-mismatch"
  | "experimental-webauthn"
  | "express-trust-proxy"

/** `config.logger`: replaces any of the three levels of the default console logger. */
export interface LoggerInstance {
  warn: (code: WarningCode) => void
  error: (error: AuthError | Error) => void
  debug: (message: string, metadata?: unknown) => void
}
