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
import { sampleProfile } from "./fixtures/provider-profiles.js"

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

/** The presets that send a magic link through an email API (Nodemailer and Email are SMTP, compared elsewhere). */
const emailPresets = ["forwardemail", "loops", "mailgun", "postmark", "resend", "sendgrid"]

describe.each(natives.filter((id) => !emailPresets.includes(id)))("the native %s preset", (id) => {
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
    for (const key of ["client", "idToken"]) expect(a[key], `${id}.${key}`).toEqual(b[key])
    // every check Auth.js makes, authchart makes (it adds `state` and PKCE where Auth.js leaves them out)
    const ownDefault = a.type === "oidc" ? ["pkce", "state", "nonce"] : ["pkce", "state"]
    expect(effectiveChecks(a, ownDefault), `${id}.checks`).toEqual(expect.arrayContaining(effectiveChecks(b, ["pkce"])))
    if (!OWN_STYLE.has(id)) expect(a.style, `${id}.style`).toEqual(b.style)
    // with an issuer, the discovery URL (Auth.js builds `undefined/…` without one; authchart leaves it unset)
    const issued = { ...options, issuer: "https://idp.example" }
    const [x, y] = [effective(ours(issued)), effective(theirs(issued))]
    for (const key of ["issuer", "wellKnown"]) expect(x[key], `${id}.${key} with an issuer`).toEqual(y[key])
    for (const key of ["authorization", "token", "userinfo"])
      expect(shapeOf(x[key]), `${id}.${key} with an issuer`).toEqual(shapeOf(y[key]))
    // Entra ID's mapping fetches the photo from Graph: compared in tests/providers.test.ts with a stand-in
    if (id === "microsoft-entra-id" || id === "azure-ad") return
    const [mine, authjs] = [await userOf(a, sampleProfile(id)), await userOf(b, sampleProfile(id))]
    // Reddit has no mapping in Auth.js (its default reads `picture`, which Reddit never sends); authchart's adds the avatar
    if (id === "reddit") expect({ ...mine, image: undefined }).toEqual({ ...authjs, image: undefined })
    else expect(mine, `${id}.profile()`).toEqual(authjs)
  })
})

describe.each(emailPresets)("the %s email preset", (id) => {
  it("has Auth.js' id, name, type and link lifetime (the default sender is authchart's placeholder)", async () => {
    const ours = await factory(join(ownDirectory, `${id}.ts`))
    const theirs = await factory(join(authjsDirectory, `${id}.js`))
    if (!ours || !theirs) throw new Error(`${id}: no default export`)
    const pick = ({ id, name, type, maxAge }: Preset) => ({ id, name, type, maxAge })
    expect(pick(effective(ours({})))).toEqual(pick(effective(theirs({}))))
    expect(effective(ours({ from: "a@acme.example" })).from).toBe(effective(theirs({ from: "a@acme.example" })).from)
  })
})

/**
 * Presets authchart had before it had all of Auth.js': its sign-in page draws their buttons in its own
 * brand colours (`brandColor` too). Visual only; every other preset has Auth.js' style exactly.
 */
const OWN_STYLE = new Set(
  "apple atlassian auth0 azure-ad bitbucket box discord dropbox facebook github gitlab google hubspot kakao keycloak line linkedin mastodon microsoft-entra-id naver notion okta reddit slack spotify twitch twitter vk wordpress yandex zoom".split(
    " ",
  ),
)

/** The checks a sign-in makes: the preset's, else the runtime's default (authchart: PKCE, state, OIDC's nonce; Auth.js: PKCE). */
function effectiveChecks(preset: Preset, runtimeDefault: string[]): string[] {
  return (preset.checks as string[] | undefined) ?? runtimeDefault
}

/**
 * The user a preset maps a profile to, as the sign-in sees it: its own `profile()`, else Auth.js'
 * default mapping (both runtimes use that one when a preset has none), with the id as the string the
 * runtime makes of it and null fields left out.
 */
async function userOf(preset: Preset, profile: Record<string, unknown>): Promise<Record<string, unknown>> {
  const map = preset.profile as
    | ((p: Record<string, unknown>, tokens: object) => Promise<Record<string, unknown>> | Record<string, unknown>)
    | undefined
  const user = map ? await map(structuredClone(profile), {}) : authjsDefaultProfile(profile)
  // a null field and a missing one are the same user to both runtimes (an adapter stores null)
  const fields = Object.entries(user).filter(([, value]) => value !== null && value !== undefined)
  return { ...Object.fromEntries(fields), id: String(user.id) }
}

/** Auth.js' `defaultProfile` (lib/utils/providers.ts), for presets that have no mapping of their own. */
function authjsDefaultProfile(profile: Record<string, unknown>): Record<string, unknown> {
  return {
    id: profile.sub ?? profile.id,
    name: profile.name ?? profile.nickname ?? profile.preferred_username,
    email: profile.email,
    image: profile.picture,
  }
}

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
