/**
 * A wrong provider id in a request: the user is sent to the `Configuration` error page, and the log
 * names the id, the request and the configured ids, both as docs/configuration.md shows them.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import GitHub from "../src/providers/github.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"
import { repoRoot } from "./support/packed.js"

/** The `text` blocks of the guide's "A wrong provider id" section, in order. */
function documented(): string[] {
  const guide = readFileSync(join(repoRoot, "docs/configuration.md"), "utf8")
  const section = guide.split("### A wrong provider id")[1]?.split("\n#")[0] ?? ""
  return [...section.matchAll(/```text\n([\s\S]*?)\n```/g)].map((m) => m[1] ?? "")
}

/** What a user reads on a page: its card's text, one line per heading or paragraph. */
function pageText(html: string): string {
  const card = /<div class="card">([\s\S]*?)<\/div><\/div>/.exec(html)?.[1] ?? ""
  return [...card.matchAll(/<(?:h1|p)>([\s\S]*?)<\/(?:h1|p)>/g)].map((m) => m[1]).join("\n")
}

describe("a wrong provider id", () => {
  const requests: [string, string, boolean][] = [
    ["POST", "/auth/signin/gihtub", true],
    ["GET", "/auth/signin/gihtub", false],
    ["GET", "/auth/callback/gihtub?code=c&state=s", false],
  ]
  it.each(requests)("%s %s: the Configuration error page, and a log line naming the id", async (method, path, form) => {
    const log = captureLogger()
    const client = new AuthClient({
      secret: SECRET,
      trustHost: true,
      logger: log.logger,
      providers: [GitHub({ clientId: "id", clientSecret: "secret" })],
    })
    const res = await client.send(path, form ? { form: { csrfToken: await client.csrf() } } : {})
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    const [page, line] = documented()
    const shown = await client.send("/auth/error?error=Configuration")
    expect(shown.status).toBe(500)
    expect(pageText(await shown.text())).toBe(page)

    const logged = log.errors.map((e) => `[auth][error] ${"type" in e ? e.type : e.name}: ${e.message}`)
    const action = path.split("?")[0]?.replace("/auth", "").replace("/gihtub", "")
    expect(logged).toEqual([
      `[auth][error] InvalidProvider: Unknown provider "gihtub" in ${method} ${action}; the configured providers are "github".`,
    ])
    if (method === "POST") expect(logged[0]).toBe(line)
  })
})
