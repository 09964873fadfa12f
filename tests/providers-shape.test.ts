/**
 * Every native preset (`src/providers/*.ts`) keeps the shape of its Auth.js namesake: the same id, name
 * and type, the same `issuer`, and `authorization` / `token` / `userinfo` of the same kind (a URL string
 * stays a string, `{ url, params }` stays an object with the same url and params), so application code
 * that reads or overrides them behaves as it did with Auth.js.
 */
import { readdirSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import GitLab from "../src/providers/gitlab.js"
import Spotify from "../src/providers/spotify.js"
import { mergeOptions } from "../src/providers/oauth.js"
import { AuthClient, SECRET } from "./helpers.js"

type Preset = Record<string, unknown> & { id: string; type: string }
type Factory = (options: Record<string, unknown>) => Preset

const authjsDirectory = join(dirname(createRequire(import.meta.url).resolve("@auth/core")), "providers")
const ownDirectory = join(import.meta.dirname, "../src/providers")

/** Presets that cannot be called without options, with the options both libraries need. */
const REQUIRED: Record<string, Record<string, unknown>> = {
  email: { server: "smtp://127.0.0.1:2525" },
  nodemailer: { server: "smtp://127.0.0.1:2525" },
}

async function factory(path: string): Promise<Factory | undefined> {
  const loaded = (await import(path)) as { default?: unknown }
  return typeof loaded.default === "function" ? (loaded.default as Factory) : undefined
}

const natives = readdirSync(ownDirectory)
  .filter((f) => f.endsWith(".ts") && readdirSync(authjsDirectory).includes(f.replace(/\.ts$/, ".js")))
  .map((f) => f.replace(/\.ts$/, ""))
  .filter((id) => id !== "oauth")

/** An endpoint's shape: its kind, and its URL and params, whatever functions it carries. */
function shapeOf(endpoint: unknown): unknown {
  if (endpoint === undefined || typeof endpoint === "string") return endpoint
  const { url, params } = endpoint as { url?: string; params?: Record<string, unknown> }
  return { kind: "object", url, params }
}

/** A preset with its `options` applied, as both libraries do before use. */
function effective(preset: Preset): Preset {
  return mergeOptions(preset, (preset.options ?? {}) as Partial<Preset>)
}

describe.each(natives)("the native %s preset", (id) => {
  it("has the shape of Auth.js' preset", async () => {
    const ours = await factory(join(ownDirectory, `${id}.ts`))
    const theirs = await factory(join(authjsDirectory, `${id}.js`))
    if (!ours || !theirs) throw new Error(`${id}: no default export`)
    const options = { clientId: "client-id", clientSecret: "client-secret", ...(REQUIRED[id] ?? {}) }
    const a = effective(ours(options))
    const b = effective(theirs(options))
    expect({ id: a.id, name: a.name, type: a.type }).toEqual({ id: b.id, name: b.name, type: b.type })
    if (a.type !== "oauth" && a.type !== "oidc") return
    expect(a.issuer).toBe(b.issuer)
    for (const key of ["authorization", "token", "userinfo"]) {
      expect(shapeOf(a[key]), `${id}.${key}`).toEqual(shapeOf(b[key]))
    }
    const method = (c: Preset) => (c.client as { token_endpoint_auth_method?: string } | undefined)?.token_endpoint_auth_method
    expect(method(a)).toBe(method(b))
  })
})

describe("reading and overriding preset endpoints", () => {
  it("GitLab's authorization is the URL string with ?scope=read_user, as in Auth.js", () => {
    expect(GitLab().authorization).toBe("https://gitlab.com/oauth/authorize?scope=read_user")
  })

  it("an override of a string endpoint's params keeps its URL, and the sign-in start uses both", async () => {
    const spotify = Spotify({
      clientId: "spotify-id",
      clientSecret: "s",
      authorization: { params: { scope: "user-read-email user-top-read" } },
    })
    expect(spotify.authorization).toEqual({
      url: "https://accounts.spotify.com/authorize?scope=user-read-email",
      params: { scope: "user-read-email user-top-read" },
    })
    const client = new AuthClient({ secret: SECRET, trustHost: true, providers: [spotify] })
    const csrfToken = await client.csrf()
    const start = await client.send("/auth/signin/spotify", { form: { csrfToken } })
    const location = new URL(start.headers.get("location") as string)
    expect(`${location.origin}${location.pathname}`).toBe("https://accounts.spotify.com/authorize")
    expect(location.searchParams.get("scope")).toBe("user-read-email user-top-read")
  })

  it("a string override replaces the endpoint, as in Auth.js", () => {
    expect(GitLab({ authorization: "https://gitlab.example/oauth/authorize?scope=api" }).authorization).toBe(
      "https://gitlab.example/oauth/authorize?scope=api",
    )
  })
})
