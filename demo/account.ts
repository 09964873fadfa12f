/**
 * The demo's account page: who you are, every session you are signed in with (each with a button that
 * ends it, this browser's marked), the providers linked to you (unlink one, or link another: signing in
 * with a provider while signed in links it), two-step sign-in, and sign out. Every button is a plain
 * form POSTing to an authchart route with the CSRF token and `callbackUrl=/account`, so the page works
 * without JavaScript; the lists come from `GET /auth/sessions` and `GET /auth/accounts`.
 */
import type { Request, RequestHandler, Response } from "express"
import { Auth } from "../src/index.js"
import type { ExpressAuthConfig } from "../src/integration/express.js"
import type { LinkedAccount, SessionInfo } from "../src/runtime/front/manage.js"
import type { Session } from "../src/types.js"
import { escapeHtml, page } from "./pages.js"
import type { DemoTotp } from "./totp.js"

export interface AccountPageOptions {
  config: ExpressAuthConfig
  totp: DemoTotp
  /** The OAuth/OIDC providers a signed-in user may link (id and name). */
  linkable: readonly { id: string; name: string }[]
}

/** What the account page says for an `?error=` the account routes redirect back with. */
const MESSAGES: Readonly<Record<string, string>> = {
  LastSignInMethod: "That provider is your only way to sign in, so it stays linked. Link another one first.",
  AccountNotFound: "That provider is not linked to you.",
  SessionNotFound: "That session had already ended.",
  OAuthAccountNotLinked: "That provider account belongs to another user.",
}

/** GETs an auth route in-process with this request's cookies and user agent; its cookies go out with the page. */
async function authJson<T>(req: Request, res: Response, config: ExpressAuthConfig, path: string): Promise<T> {
  const headers = new Headers({ cookie: req.headers.cookie ?? "", "user-agent": req.get("user-agent") ?? "" })
  const response = await Auth(new Request(`${req.protocol}://${req.get("host")}${path}`, { headers }), config)
  for (const line of response.headers.getSetCookie()) res.append("Set-Cookie", line)
  return (await response.json()) as T
}

/** A form of one button posting to an auth route, with the CSRF token and the way back here. */
function button(action: string, label: string, csrfToken: string, fields: Record<string, string> = {}): string {
  const hidden = Object.entries({ csrfToken, callbackUrl: "/account", ...fields })
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("")
  return `<form method="post" action="${escapeHtml(action)}" class="inline">${hidden}<button>${escapeHtml(label)}</button></form>`
}

const when = (iso: string | null) => (iso ? `<time datetime="${iso}">${iso.slice(0, 16).replace("T", " ")} UTC</time>` : "unknown")

function sessionsSection(sessions: readonly SessionInfo[], csrfToken: string): string {
  const items = sessions.map((s) => {
    const label = s.current ? "Sign out this browser" : "Sign out this session"
    return `<li${s.current ? ' class="current"' : ""}><strong>${escapeHtml(s.userAgent ?? "Unknown browser")}</strong>${s.current ? " (this browser)" : ""}<br>
signed in ${when(s.createdAt)}, last seen ${when(s.lastSeenAt)} ${button("/auth/revoke-session", label, csrfToken, { id: s.id })}</li>`
  })
  return `<h2>Sessions</h2>
<ul class="sessions">
${items.join("\n")}
</ul>
${sessions.length > 1 ? button("/auth/revoke-other-sessions", "Sign out all other sessions", csrfToken) : ""}`
}

function accountsSection(accounts: readonly LinkedAccount[], linkable: AccountPageOptions["linkable"], csrfToken: string): string {
  const linked = new Set(accounts.map((a) => a.provider))
  const items = accounts.map(
    (a) =>
      `<li>${escapeHtml(a.name)} ${button(`/auth/unlink-account/${encodeURIComponent(a.provider)}`, `Unlink ${a.name}`, csrfToken)}</li>`,
  )
  const more = linkable
    .filter((p) => !linked.has(p.id))
    .map((p) => button(`/auth/signin/${encodeURIComponent(p.id)}`, `Link ${p.name}`, csrfToken))
  return `<h2>Linked providers</h2>
${items.length > 0 ? `<ul class="accounts">\n${items.join("\n")}\n</ul>` : "<p>None yet.</p>"}
${more.length > 0 ? `<p class="link-more">${more.join(" ")}</p>` : ""}`
}

/** The `GET /account` handler (behind `requireUser`). */
export function accountPage({ config, totp, linkable }: AccountPageOptions): RequestHandler {
  return async (req, res, next) => {
    try {
      const session = res.locals.session as Session
      const user = session.user ?? {}
      const { csrfToken } = await authJson<{ csrfToken: string }>(req, res, config, "/auth/csrf")
      const sessions = await authJson<SessionInfo[]>(req, res, config, "/auth/sessions")
      const accounts = await authJson<LinkedAccount[]>(req, res, config, "/auth/accounts")
      const error = typeof req.query.error === "string" ? MESSAGES[req.query.error] : undefined
      res.set("cache-control", "no-store")
      res.send(
        page(
          "Account",
          session,
          `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>\n` : ""}<p>Name: ${escapeHtml(user.name ?? "")}<br>Email: ${escapeHtml(user.email ?? "")}</p>
${sessionsSection(sessions, csrfToken)}
${accountsSection(accounts, linkable, csrfToken)}
${await totp.accountSection(user.email)}
<h2>Sign out</h2>
${button("/auth/signout", "Sign out", csrfToken, { callbackUrl: "/" })}`,
        ),
      )
    } catch (err) {
      next(err)
    }
  }
}
