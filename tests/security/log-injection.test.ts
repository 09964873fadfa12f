/**
 * Attack class: log injection. Request data that reaches a log line (a provider id decoded from the path,
 * an error message quoting it, debug metadata) carries CR/LF to forge extra `[auth][error]` lines, ESC to
 * send terminal escape sequences, or U+2028/U+2029 that some viewers treat as line breaks. The logger
 * writes every control character as an escape, for the default console output and for custom loggers.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth, AuthError, type AuthConfig } from "../../src/index.js"
import Credentials from "../../src/providers/credentials.js"
import { createLogger, escapeControls } from "../../src/runtime/config/logger.js"
import { SECRET, captureLogger } from "../helpers.js"

/** A provider id that tries to end the line, forge a red `[auth][error]` line and break with U+2028. */
const INJECTED_PATH = "/auth/callback/x%0D%0A%1B[31m[auth][error]%1B[0m%20forged%E2%80%A8%C2%85end"

/** Our own colour codes, the only escape sequences a default log line may hold. */
const OWN_COLOURS = /\x1b\[(?:31|33|90|0)m/g
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

function config(extra: Partial<AuthConfig> = {}): AuthConfig {
  return { secret: SECRET, trustHost: true, providers: [Credentials({ authorize: () => null })], ...extra }
}

/** Every line written to `console[method]` during `fn`, arguments joined as console does. */
async function consoleLines(method: "error" | "warn" | "debug", fn: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = []
  const spy = vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")))
  try {
    await fn()
  } finally {
    spy.mockRestore()
  }
  return lines
}

afterEach(() => vi.restoreAllMocks())

describe("log injection through a provider id in the path", () => {
  it("the default logger writes the id escaped: one line, no forged [auth][error], no ESC of the attacker", async () => {
    const lines = await consoleLines("error", () => Auth(new Request(`http://app.test${INJECTED_PATH}`), config()))
    expect(lines).toHaveLength(1)
    const line = lines[0] as string
    expect(line.replace(OWN_COLOURS, "")).not.toMatch(CONTROL)
    expect(line.match(/\[auth\]\[error\]/g)).toHaveLength(2) // the real prefix, and the quoted attempt
    expect(line).toContain(String.raw`x\x0d\x0a\x1b[31m[auth][error]\x1b[0m forged\u2028\x85end`)
  })

  it("a custom logger receives the error with its message escaped", async () => {
    const log = captureLogger()
    await Auth(new Request(`http://app.test${INJECTED_PATH}`), config({ logger: log.logger }))
    expect(log.errors).toHaveLength(1)
    const [error] = log.errors
    expect(error?.message).not.toMatch(CONTROL)
    expect(error?.message).toContain(String.raw`\x0d\x0a\x1b[31m`)
    expect(error?.stack ?? "").not.toContain("\x1b")
  })

  it("debug metadata (the request's provider id) is escaped, default and custom debug", async () => {
    const lines = await consoleLines("debug", () => Auth(new Request(`http://app.test${INJECTED_PATH}`), config({ debug: true })))
    const request = lines.find((l) => l.includes("request")) ?? ""
    expect(request.replace(OWN_COLOURS, "").replace(/\n/g, "")).not.toMatch(CONTROL)
    expect(request).toContain(String.raw`\\x0d\\x0a`) // JSON of the escaped text

    const seen: unknown[] = []
    await Auth(
      new Request(`http://app.test${INJECTED_PATH}`),
      config({ debug: true, logger: { debug: (_m, meta) => void seen.push(meta) } }),
    )
    expect(JSON.stringify(seen)).toContain("x\\\\x0d\\\\x0a")
    expect(JSON.stringify(seen)).not.toMatch(/\\u001b|\\r|\\n/)
  })
})

describe("the logger escapes every message, name, stack and metadata value", () => {
  it.each([
    ["LF", "a\nb", String.raw`a\x0ab`],
    ["CR", "a\rb", String.raw`a\x0db`],
    ["ESC", "a\x1b[2Jb", String.raw`a\x1b[2Jb`],
    ["NUL", "a\0b", String.raw`a\x00b`],
    ["TAB", "a\tb", String.raw`a\x09b`],
    ["DEL", "a\x7fb", String.raw`a\x7fb`],
    ["C1 NEL", "a\u0085b", String.raw`a\x85b`],
    ["C1 CSI", "a\u009b31mb", String.raw`a\x9b31mb`],
    ["LINE SEPARATOR", "a\u2028b", String.raw`a\u2028b`],
    ["PARAGRAPH SEPARATOR", "a\u2029b", String.raw`a\u2029b`],
    ["plain text and non-ASCII letters", "Zoë → ok", "Zoë → ok"],
  ])("%s", (_name, input, escaped) => {
    expect(escapeControls(input)).toBe(escaped)
  })

  it("an error's cause (stack header and details) is escaped; the stack frames stay one per line", async () => {
    const cause = new Error("upstream said\n[auth][error] forged")
    const error = new AuthError("failed", { err: cause, provider: "p\u2028q" })
    const lines = await consoleLines("error", async () => createLogger(undefined, false).error(error))
    expect(lines).toHaveLength(3)
    const [, causeLine = "", details = ""] = lines
    expect(causeLine.split("\n")[0]).toContain(String.raw`upstream said\x0a[auth][error] forged`)
    expect(
      causeLine
        .split("\n")
        .slice(1)
        .every((frame) => frame.trimStart().startsWith("at ")),
    ).toBe(true)
    expect(details).toContain(String.raw`p\\u2028q`)
    for (const line of lines) expect(line.replace(OWN_COLOURS, "").replace(/\n/g, "")).not.toMatch(CONTROL)
  })

  it("warnings carry a readable text after the code", async () => {
    const lines = await consoleLines("warn", async () => createLogger(undefined, false).warn("express-trust-proxy"))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('app.set("trust proxy", 1)')
  })
})
