/**
 * Shared scenarios of the attack suite: a real OpenID provider with a set of authchart OIDC providers
 * pointing at it, an in-process client per "browser" (cookie jar, captured log), and the few steps every
 * OAuth attack needs (start a sign-in, let the provider answer, deliver the answer to our callback).
 */
import { afterAll, beforeAll, expect } from "vitest"
import type { AuthConfig } from "../../src/index.js"
import Credentials from "../../src/providers/credentials.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "../helpers.js"
import { type AuthorizeResult, type OidcServer, type TestClient, startOidcProvider } from "../support/oidc-provider.js"
import { type SmtpCapture, startSmtp } from "../support/smtp.js"

export { ORIGIN, SECRET }

/** The client every OIDC provider of the suite uses (`client_secret_basic`). */
export const CLIENT = { id: "basic-client", secret: "basic-secret-0123456789" } as const
/** A second client at the same provider (another relying party, or another of our providers). */
export const OTHER_CLIENT = { id: "other-client", secret: "other-secret-0123456789" } as const

/** The flow cookie of one provider (plain HTTP, default cookie names). */
export const flowCookie = (id: string): string => `authchart.flow.${id}`

/** Callback URLs registered for `ids` on `origin`. */
export function callbacks(ids: readonly string[], origin = ORIGIN): string[] {
  return ids.map((id) => `${origin}/auth/callback/${id}`)
}

/**
 * A real OpenID provider with our two clients, both registered for the callbacks of `ids` and for
 * `<ORIGIN>/auth/signout-callback` after logout (and any `extra` clients as given). With `backchannel`,
 * both also register `<ORIGIN>/auth/backchannel-logout/<first id>`, so the provider puts `sid` in their
 * ID tokens (Back-Channel Logout 1.0 §2.1, `backchannel_logout_session_required`).
 */
export function startIdp(
  ids: readonly string[],
  options: { issParameter?: boolean; extra?: TestClient[]; backchannel?: boolean } = {},
): Promise<OidcServer> {
  const redirect_uris = callbacks(ids)
  const post_logout_redirect_uris = [`${ORIGIN}/auth/signout-callback`]
  const logout = {
    post_logout_redirect_uris,
    ...(options.backchannel
      ? { backchannel_logout_uri: `${ORIGIN}/auth/backchannel-logout/${ids[0]}`, backchannel_logout_session_required: true }
      : {}),
  }
  return startOidcProvider({
    clients: [
      { client_id: CLIENT.id, client_secret: CLIENT.secret, redirect_uris, ...logout },
      { client_id: OTHER_CLIENT.id, client_secret: OTHER_CLIENT.secret, redirect_uris, ...logout },
      ...(options.extra ?? []),
    ],
    ...(options.issParameter === undefined ? {} : { issParameter: options.issParameter }),
  })
}

/**
 * A real OpenID provider (callbacks for `ids`) and a real SMTP server for the calling test file: started
 * before its tests, stopped after. Read them off the returned object inside tests.
 */
export function idpAndSmtp(ids: readonly string[]): { idp: OidcServer; smtp: SmtpCapture } {
  const peers = {} as { idp: OidcServer; smtp: SmtpCapture }
  beforeAll(async () => {
    ;[peers.idp, peers.smtp] = await Promise.all([startIdp(ids), startSmtp()])
  })
  afterAll(async () => {
    await Promise.all([peers.idp?.stop(), peers.smtp?.stop()])
  })
  return peers
}

/** An authchart OIDC provider `id` at `server` (discovery), with `extra` options on top. */
export function oidcAt(server: OidcServer, id: string, extra: Record<string, unknown> = {}) {
  return { id, name: id, type: "oidc" as const, issuer: server.issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret, ...extra }
}

/** A browser for a config made of `providers` (plus `extra`), with its log captured. */
export function browser(providers: unknown[], extra: Partial<AuthConfig> = {}, origin = ORIGIN) {
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    providers: providers as AuthConfig["providers"],
    ...extra,
  }
  return { client: new AuthClient(config, origin), log, config }
}

/** The types of the errors a config logged, in order. */
export function errorTypes(log: { errors: Error[] }): string[] {
  return log.errors.map((e) => (e as { type?: string }).type ?? e.name)
}

/** POST /signin/:id with a valid CSRF token: the authorization URL the browser is sent to. */
export async function beginSignIn(client: AuthClient, id: string, form: Record<string, string> = {}, query = ""): Promise<URL> {
  const csrfToken = await client.csrf()
  const res = await client.send(`/auth/signin/${id}${query}`, { form: { csrfToken, ...form } })
  expect(res.status).toBe(303)
  return new URL(res.headers.get("location") as string)
}

/** The provider's redirect back to us, as a URL (form_post answers are not used by the suite). */
export function answerUrl(answer: AuthorizeResult): URL {
  if (answer.kind !== "redirect") throw new Error(`expected a redirect answer, got ${answer.kind}`)
  return new URL(answer.url)
}

/** Delivers a callback URL (possibly edited) to our app in `client`'s browser. */
export function deliver(client: AuthClient, url: URL): Promise<Response> {
  return client.send(`${url.pathname}${url.search}`)
}

/** The session of a browser, or null. */
export async function sessionOf(client: AuthClient): Promise<{ user: { name?: string; email?: string } } | null> {
  return (await (await client.send("/auth/session")).json()) as { user: { name?: string; email?: string } } | null
}

/** Asserts that a response ended the attempt on the error or sign-in page with `error`, and no session. */
export async function expectRefused(client: AuthClient, res: Response, location: string): Promise<void> {
  expect(res.headers.get("location")).toBe(location)
  expect(client.jar.get("authjs.session-token")).toBeUndefined()
  expect(await sessionOf(client)).toBeNull()
}

/** The session cookie name on plain HTTP. */
export const SESSION_COOKIE = "authjs.session-token"

/** A credentials provider that signs anyone in by name (`u-<name>`, `<name>@example.test`). */
export const people = Credentials({
  credentials: { username: {} },
  authorize: ({ username }) => ({ id: `u-${String(username)}`, name: String(username), email: `${String(username)}@example.test` }),
})

/** Signs `client` in through {@link people}; the answer must be the redirect carrying a session cookie. */
export async function signInAs(client: AuthClient, username: string): Promise<void> {
  const csrfToken = await client.csrf()
  const res = await client.send("/auth/callback/credentials", { form: { csrfToken, username } })
  expect(res.status).toBe(303)
  expect(client.jar.get(SESSION_COOKIE)).toBeTruthy()
}
