/** The test IdP's HTTP plumbing: bounded form bodies, plain and JSON answers, and its login page. */
import type { IncomingMessage, ServerResponse } from "node:http"
import type { TestIdPAccount } from "./idp.js"

const MAX_BODY = 64 * 1024

/** An urlencoded request body (at most 64 KiB). */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let body = ""
  for await (const chunk of req) {
    body += String(chunk)
    if (body.length > MAX_BODY) throw new Error("body too large")
  }
  return new URLSearchParams(body)
}

/** A plain-text (or `type`) answer that no cache keeps. */
export function send(res: ServerResponse, status: number, body: string, type = "text/plain; charset=utf-8"): void {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" }).end(body)
}

/** A JSON answer that no cache keeps. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, JSON.stringify(body), "application/json")
}

const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** One button per account, and a cancel button (the provider then answers `error=access_denied`). */
export function loginPage(action: string, interaction: string, accounts: readonly TestIdPAccount[]): string {
  const buttons = accounts
    .map((a) => `<button name="account" value="${escapeHtml(a.sub)}">${escapeHtml(a.name ?? a.email)} (${escapeHtml(a.email)})</button>`)
    .join("\n")
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test IdP</title></head><body>
<h1>Test IdP: sign in as</h1>
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="interaction" value="${escapeHtml(interaction)}">
${buttons}
<button name="deny" value="1">Cancel</button></form></body></html>`
}
