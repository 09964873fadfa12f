/**
 * The demo's own pages: one layout (navigation, who is signed in), the mailbox list, and the guard that
 * sends anonymous visitors to sign in.
 */
import type { NextFunction, Request, Response } from "express"
import type { Session } from "../src/types.js"
import type { MailboxMessage } from "./mailbox.js"

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

export function mailboxPage(messages: MailboxMessage[]): string {
  const items = messages.map((m) => {
    const link = m.link ? `<br><a href="${escapeHtml(m.link)}">${escapeHtml(m.link)}</a>` : ""
    const code = m.code ? `<br>code <strong class="code">${escapeHtml(m.code)}</strong>` : ""
    const time = m.receivedAt.toISOString()
    return `<li><time datetime="${time}">${time.slice(0, 19).replace("T", " ")} UTC</time> to <strong>${escapeHtml(m.to.join(", "))}</strong>: ${escapeHtml(m.subject)}${link}${code}</li>`
  })
  return `<p>Messages the demo's SMTP server received, newest first (the last 50, until the demo stops).
Nothing is delivered anywhere. This page exists only in development: with <code>NODE_ENV=production</code> it is not served.</p>
${items.length > 0 ? `<ol class="mailbox">\n${items.join("\n")}\n</ol>` : "<p>No messages yet: sign in with Email or Code by email and the link or the code shows up here.</p>"}`
}

export function page(title: string, session: Session | null, body: string): string {
  const who = session?.user
    ? `Signed in as <strong>${escapeHtml(session.user.email ?? session.user.name ?? "someone")}</strong>`
    : "Not signed in"
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · authchart demo</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}
nav a{margin-right:1rem}pre{background:#f4f4f5;padding:1rem;overflow:auto}.mailbox a{overflow-wrap:anywhere}</style></head>
<body><nav><a href="/">Home</a><a href="/auth/signin">Sign in</a><a href="/protected">Protected page</a><a href="/account">Account</a><a href="/auth/signout">Sign out</a></nav>
<p>${who}</p>
<h1>${escapeHtml(title)}</h1>
${body}
</body></html>`
}

/** Lets a request through when it has a signed-in user, else sends it to sign in and back here. */
export function requireUser(req: Request, res: Response, next: NextFunction): void {
  const session = res.locals.session as Session | null
  if (session?.user) return next()
  res.redirect(`/auth/signin?callbackUrl=${encodeURIComponent(req.originalUrl)}`)
}
