/**
 * Response checks of the bench, by name so a load generator in another process can apply them: a
 * broken server must not look fast, so only responses that pass count.
 */
import { BENCH_USER, SESSION_COOKIE } from "./shared.js"

/** A check, as plain data: `session` (the bench user's session JSON), `bare` (`{ ok: true }`), `signIn`. */
export type VerifySpec = { kind: "session" } | { kind: "bare" } | { kind: "signIn"; callbackUrl: string }

/** Answers null when the response is right, else what is wrong with it. */
export type Verify = (status: number, body: string, headers: Record<string, string | string[]>) => string | null

/** `name=value` of the Set-Cookie line that sets `name` (non-empty), if any. */
export function cookiePair(setCookies: string[], name: string): string | undefined {
  for (const sc of setCookies) {
    const first = sc.split(";", 1)[0] ?? ""
    const eq = first.indexOf("=")
    if (first.slice(0, eq) === name && first.length > eq + 1) return first
  }
  return undefined
}

/** Whether a session body holds the bench user with an expiry. */
export function isBenchSession(body: unknown): boolean {
  const s = body as { user?: { name?: unknown; email?: unknown }; expires?: unknown } | null
  return (
    !!s &&
    s.user?.name === BENCH_USER.name &&
    s.user?.email === BENCH_USER.email &&
    typeof s.expires === "string" &&
    !Number.isNaN(Date.parse(s.expires))
  )
}

/** 200 with a JSON body that passes `pred`. */
export const json200 =
  (pred: (body: unknown) => boolean, what: string): Verify =>
  (status, body) => {
    if (status !== 200) return `status ${status}: ${body.slice(0, 160)}`
    let parsed: unknown
    try {
      parsed = JSON.parse(body)
    } catch {
      return `not JSON: ${body.slice(0, 160)}`
    }
    return pred(parsed) ? null : `not ${what}: ${body.slice(0, 160)}`
  }

/** A redirect to `callbackUrl` that sets the session cookie. */
export function signInVerify(callbackUrl: string): Verify {
  return (status, _body, headers) => {
    if (status !== 302 && status !== 303) return `status ${status}`
    const location = headers.location
    if (location !== callbackUrl) return `location ${String(location)}`
    const sc = headers["set-cookie"]
    const list = Array.isArray(sc) ? sc : sc ? [sc] : []
    if (!cookiePair(list, SESSION_COOKIE)) return `no ${SESSION_COOKIE} in Set-Cookie`
    return null
  }
}

/** The check a spec names. */
export function verifier(spec: VerifySpec): Verify {
  switch (spec.kind) {
    case "session":
      return json200(isBenchSession, "the bench session")
    case "bare":
      return json200((b) => (b as { ok?: unknown })?.ok === true, "{ok:true}")
    case "signIn":
      return signInVerify(spec.callbackUrl)
  }
}
