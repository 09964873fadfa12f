import { createServer } from "node:http"
import type { IncomingHttpHeaders, Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { TokenSet, User } from "../src/types.js"
import type { OAuthConfig, OAuthUserConfig } from "../src/providers/oauth-types.js"
import OAuth, { defaultProfile, mergeOptions } from "../src/providers/oauth.js"
import OIDC from "../src/providers/oidc.js"
import Apple from "../src/providers/apple.js"
import Auth0 from "../src/providers/auth0.js"
import Discord, { discordAvatarUrl } from "../src/providers/discord.js"
import Facebook from "../src/providers/facebook.js"
import GitHub from "../src/providers/github.js"
import type { GitHubProfile } from "../src/providers/github.js"
import GitLab from "../src/providers/gitlab.js"
import Google from "../src/providers/google.js"
import Keycloak from "../src/providers/keycloak.js"
import LinkedIn from "../src/providers/linkedin.js"
import MicrosoftEntraID from "../src/providers/microsoft-entra-id.js"
import Okta from "../src/providers/okta.js"
import Slack from "../src/providers/slack.js"
import Spotify from "../src/providers/spotify.js"
import Twitch, { conformTwitchTokenResponse } from "../src/providers/twitch.js"
import Twitter from "../src/providers/twitter.js"

/**
 * The user a preset maps a recorded answer to. Recorded answers are real ones: they need not have every
 * field Auth.js' profile types (which authchart's are) declare required, hence the one cast.
 */
async function mapProfile<P extends object>(config: OAuthConfig<P>, profile: object, tokens: TokenSet = {}): Promise<User> {
  if (!config.profile) throw new Error(`${config.id} has no profile mapping`)
  return config.profile(profile as P, tokens)
}

function endpoint(setting: OAuthUserConfig["authorization"]): { url?: string; params?: Record<string, unknown> } {
  if (setting === undefined) return {}
  return typeof setting === "string" ? { url: setting } : setting
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))
}

function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())))
}

/** Recorded shapes, trimmed to the fields that matter plus a few that don't. */
const recorded = {
  github: {
    login: "octocat",
    id: 1234,
    node_id: "MDQ6VXNlcjEyMzQ=",
    avatar_url: "https://avatars.githubusercontent.com/u/1234?v=4",
    html_url: "https://github.com/octocat",
    type: "User",
    site_admin: false,
    name: null,
    company: "@github",
    blog: "https://github.blog",
    location: "San Francisco",
    email: "octocat@github.com",
    bio: null,
    twitter_username: null,
    public_repos: 8,
    followers: 9001,
    following: 9,
    created_at: "2011-01-25T18:44:36Z",
    updated_at: "2024-06-01T12:00:00Z",
  },
  google: {
    iss: "https://accounts.google.com",
    azp: "1234.apps.googleusercontent.com",
    aud: "1234.apps.googleusercontent.com",
    sub: "110169484474386276334",
    email: "ada@example.com",
    email_verified: true,
    at_hash: "HK6E_P6Dh8Y93mRNtsDB1Q",
    name: "Ada Lovelace",
    picture: "https://lh3.googleusercontent.com/a/ACg8ocK=s96-c",
    given_name: "Ada",
    family_name: "Lovelace",
    iat: 1_700_000_000,
    exp: 1_700_003_600,
  },
  discord: {
    id: "80351110224678912",
    username: "nelly",
    discriminator: "1337",
    global_name: "Nelly",
    avatar: "8342729096ea3675442027381ff50dfe",
    verified: true,
    email: "nelly@discord.com",
    flags: 64,
    banner: "06c16474723fe537c283b8efa61a30c8",
    accent_color: 16711680,
    premium_type: 1,
    public_flags: 64,
    mfa_enabled: true,
    locale: "en-US",
  },
  apple: {
    iss: "https://appleid.apple.com",
    aud: "com.example.web",
    exp: 1_700_086_400,
    iat: 1_700_000_000,
    sub: "001234.5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d.1234",
    nonce: "n-0S6_WzA2Mj",
    at_hash: "qFk6X6ZsS1pI3e6aEqlGfQ",
    email: "x7k2@privaterelay.appleid.com",
    email_verified: true,
    is_private_email: true,
    auth_time: 1_700_000_000,
    nonce_supported: true,
  },
  auth0: {
    sub: "auth0|64b7f3e2a1c2d3e4f5a6b7c8",
    nickname: "jane",
    name: "jane@example.com",
    picture: "https://s.gravatar.com/avatar/abc.png",
    updated_at: "2024-05-01T10:00:00.000Z",
    email: "jane@example.com",
    email_verified: true,
  },
  keycloak: {
    iss: "https://sso.acme.example/realms/acme",
    aud: "web",
    sub: "f3c9d2a4-8b1e-4c7d-9a2f-6e5b4d3c2a1b",
    azp: "web",
    preferred_username: "jdoe",
    email: "jdoe@acme.example",
    email_verified: true,
    given_name: "John",
    family_name: "Doe",
  },
  gitlab: {
    id: 4321,
    username: "jdoe",
    name: "John Doe",
    state: "active",
    avatar_url: "https://gitlab.com/uploads/-/system/user/avatar/4321/avatar.png",
    web_url: "https://gitlab.com/jdoe",
    created_at: "2019-03-01T09:00:00.000Z",
    bio: "",
    public_email: null,
    email: "jdoe@example.com",
    bot: false,
    two_factor_enabled: true,
  },
  entra: {
    aud: "6731de76-14a6-49ae-97bc-6eba6914391e",
    iss: "https://login.microsoftonline.com/9122040d-6c67-4c5b-b112-36a304b66dad/v2.0",
    iat: 1_700_000_000,
    nbf: 1_700_000_000,
    exp: 1_700_003_600,
    name: "Megan Bowen",
    oid: "00000000-0000-0000-66f3-3332eca7ea81",
    preferred_username: "meganb@contoso.example",
    email: "meganb@contoso.example",
    sub: "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
    tid: "9122040d-6c67-4c5b-b112-36a304b66dad",
    ver: "2.0",
  },
  okta: {
    iss: "https://acme.okta.com/oauth2/default",
    aud: "0oa1b2c3d4",
    sub: "00u1a2b3c4d5e6f7g8h9",
    name: "Pat Example",
    preferred_username: "pat@acme.example",
    email: "pat@acme.example",
    email_verified: true,
    zoneinfo: "America/Los_Angeles",
  },
  facebook: {
    id: "10224071289461",
    name: "Sam Example",
    email: "sam@example.com",
    picture: {
      data: {
        height: 50,
        is_silhouette: false,
        url: "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10224071289461",
        width: 50,
      },
    },
  },
  twitter: {
    data: {
      id: "2244994945",
      name: "X Dev",
      username: "XDevelopers",
      profile_image_url: "https://pbs.twimg.com/profile_images/1/normal.jpg",
    },
  },
  linkedin: {
    iss: "https://www.linkedin.com/oauth",
    aud: "86abcdef",
    sub: "782bbtaQ",
    name: "Lin Kedin",
    given_name: "Lin",
    family_name: "Kedin",
    picture: "https://media.licdn.com/dms/image/C5603AQ/profile.jpg",
    email: "lin@example.com",
    email_verified: true,
  },
  slack: {
    iss: "https://slack.com",
    aud: "25259531569.1115258246291",
    sub: "U0R7JM",
    "https://slack.com/user_id": "U0R7JM",
    "https://slack.com/team_id": "T0R7GR",
    email: "krane@slack-corp.com",
    email_verified: true,
    name: "krane",
    picture: "https://secure.gravatar.com/avatar/cb0c2b.jpg?s=512",
    given_name: "Bront",
    family_name: "Labradoodle",
    locale: "en-US",
  },
  twitch: {
    iss: "https://id.twitch.tv/oauth2",
    aud: "hof5gwx0su6owfnys0yan9c87zr6t",
    sub: "713936733",
    preferred_username: "streamer",
    email: "streamer@example.com",
    email_verified: true,
    picture: "https://static-cdn.jtvnw.net/jtv_user_pictures/streamer-profile_image-300x300.png",
  },
  spotify: {
    id: "wizzler",
    display_name: "JM Wizzler",
    email: "wizzler@example.com",
    country: "SE",
    product: "premium",
    uri: "spotify:user:wizzler",
    images: [
      { url: "https://i.scdn.co/image/ab6775700000ee85", height: 300, width: 300 },
      { url: "https://i.scdn.co/image/ab67757000003b82", height: 64, width: 64 },
    ],
    followers: { href: null, total: 3829 },
  },
}

function row<P extends object>(config: OAuthConfig<P>, profile: object, expected: User) {
  return { id: config.id, run: () => mapProfile(config, profile), expected }
}

describe("defaultProfile", () => {
  it("reads the usual claims and prefers sub over id", () => {
    expect(defaultProfile({ sub: "s-1", id: "i-1", name: "Ada", email: "a@x.example", picture: "https://p" })).toEqual({
      id: "s-1",
      name: "Ada",
      email: "a@x.example",
      image: "https://p",
    })
  })

  it("turns a numeric id into a string and falls back through nickname and preferred_username", () => {
    // claims the profile lacks are left out, as in Auth.js' default profile
    expect(defaultProfile({ id: 1234 } as never)).toEqual({ id: "1234" })
    expect(defaultProfile({ sub: "s", nickname: "nick", preferred_username: "pref" }).name).toBe("nick")
    expect(defaultProfile({ sub: "s", preferred_username: "pref" }).name).toBe("pref")
  })

  it("ignores a picture that is not a URL string", () => {
    expect(defaultProfile({ sub: "s", picture: { data: { url: "https://p" } } })).toEqual({ id: "s" })
  })

  it.each([{}, { sub: null, id: null }, { sub: "" }])("throws a TypeError without sub or id: %j", (profile) => {
    expect(() => defaultProfile(profile)).toThrow(TypeError)
  })
})

describe("OAuth and OIDC", () => {
  it("OAuth() names the provider after its id and injects no openid scope", async () => {
    const config = OAuth({
      id: "acme",
      authorization: { url: "https://id.acme.example/authorize", params: { scope: "profile" } },
      token: "https://id.acme.example/token",
      userinfo: "https://api.acme.example/me",
    })
    expect(config).toMatchObject({ id: "acme", name: "acme", type: "oauth" })
    expect(endpoint(config.authorization).params).toEqual({ scope: "profile" })
    expect(await mapProfile(config, { id: 77 } as never)).toEqual({ id: "77" })
  })

  it("OIDC() keeps the user's name and profile mapping", async () => {
    const config = OIDC({
      id: "acme",
      name: "Acme",
      issuer: "https://id.acme.example",
      profile: (p) => ({ id: String(p.sub), name: "custom" }),
    })
    expect(config).toMatchObject({ id: "acme", name: "Acme", type: "oidc", issuer: "https://id.acme.example" })
    expect(await mapProfile(config, { sub: "x" })).toEqual({ id: "x", name: "custom" })
  })
})

describe("preset profiles", () => {
  const rows = [
    row(GitHub(), recorded.github, {
      id: "1234",
      name: "octocat",
      email: "octocat@github.com",
      image: "https://avatars.githubusercontent.com/u/1234?v=4",
    }),
    row(Google(), recorded.google, {
      id: "110169484474386276334",
      name: "Ada Lovelace",
      email: "ada@example.com",
      image: "https://lh3.googleusercontent.com/a/ACg8ocK=s96-c",
    }),
    row(Discord(), recorded.discord, {
      id: "80351110224678912",
      name: "Nelly",
      email: "nelly@discord.com",
      image: "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
    }),
    row(Apple(), recorded.apple, {
      id: "001234.5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d.1234",
      name: null,
      email: "x7k2@privaterelay.appleid.com",
      image: null,
    }),
    row(
      Apple(),
      { ...recorded.apple, user: { name: { firstName: "Tim", lastName: "Apple" } } },
      {
        id: "001234.5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d.1234",
        name: "Tim Apple",
        email: "x7k2@privaterelay.appleid.com",
        image: null,
      },
    ),
    row(Auth0({ issuer: "https://acme.eu.auth0.com" }), recorded.auth0, {
      id: "auth0|64b7f3e2a1c2d3e4f5a6b7c8",
      name: "jane@example.com",
      email: "jane@example.com",
      image: "https://s.gravatar.com/avatar/abc.png",
    }),
    row(Keycloak({ issuer: "https://sso.acme.example/realms/acme" }), recorded.keycloak, {
      id: "f3c9d2a4-8b1e-4c7d-9a2f-6e5b4d3c2a1b",
      name: "jdoe",
      email: "jdoe@acme.example",
    }),
    row(GitLab(), recorded.gitlab, {
      id: "4321",
      name: "John Doe",
      email: "jdoe@example.com",
      image: "https://gitlab.com/uploads/-/system/user/avatar/4321/avatar.png",
    }),
    row(MicrosoftEntraID(), recorded.entra, {
      id: "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
      name: "Megan Bowen",
      email: "meganb@contoso.example",
      image: null,
    }),
    row(Okta({ issuer: "https://acme.okta.com/oauth2/default" }), recorded.okta, {
      id: "00u1a2b3c4d5e6f7g8h9",
      name: "Pat Example",
      email: "pat@acme.example",
    }),
    row(Facebook(), recorded.facebook, {
      id: "10224071289461",
      name: "Sam Example",
      email: "sam@example.com",
      image: "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10224071289461",
    }),
    row(Twitter(), recorded.twitter, {
      id: "2244994945",
      name: "X Dev",
      email: null,
      image: "https://pbs.twimg.com/profile_images/1/normal.jpg",
    }),
    row(LinkedIn(), recorded.linkedin, {
      id: "782bbtaQ",
      name: "Lin Kedin",
      email: "lin@example.com",
      image: "https://media.licdn.com/dms/image/C5603AQ/profile.jpg",
    }),
    row(Slack(), recorded.slack, {
      id: "U0R7JM",
      name: "krane",
      email: "krane@slack-corp.com",
      image: "https://secure.gravatar.com/avatar/cb0c2b.jpg?s=512",
    }),
    row(Twitch(), recorded.twitch, {
      id: "713936733",
      name: "streamer",
      email: "streamer@example.com",
      image: "https://static-cdn.jtvnw.net/jtv_user_pictures/streamer-profile_image-300x300.png",
    }),
    row(Spotify(), recorded.spotify, {
      id: "wizzler",
      name: "JM Wizzler",
      email: "wizzler@example.com",
      image: "https://i.scdn.co/image/ab6775700000ee85",
    }),
  ]

  it.each(rows)("$id maps its recorded profile", async ({ run, expected }) => {
    const user = await run()
    expect(user).toEqual(expected)
    expect(typeof user.id).toBe("string")
  })

  it("every preset id is a string even when the provider sends a number", async () => {
    expect((await mapProfile(GitHub(), { ...recorded.github, id: 9_007_199_254 })).id).toBe("9007199254")
    expect((await mapProfile(GitLab(), { ...recorded.gitlab, id: 7 })).id).toBe("7")
    expect((await mapProfile(GitLab(), { ...recorded.gitlab, sub: "77" })).id).toBe("77")
  })

  it("falls back to null for missing optional fields", async () => {
    const { email: _email, images: _images, ...bare } = recorded.spotify
    expect(await mapProfile(Spotify(), bare)).toMatchObject({ email: null, image: null })
    const { picture: _picture, email: _fbEmail, ...fb } = recorded.facebook
    expect(await mapProfile(Facebook(), fb)).toMatchObject({ email: null, image: null })
    expect(await mapProfile(Discord(), { ...recorded.discord, global_name: null })).toMatchObject({ name: "nelly" })
  })
})

describe("preset settings", () => {
  it.each([
    [GitHub(), "github", "GitHub", "oauth"],
    [Google(), "google", "Google", "oidc"],
    [Discord(), "discord", "Discord", "oauth"],
    [Apple(), "apple", "Apple", "oidc"],
    [Auth0(), "auth0", "Auth0", "oidc"],
    [Keycloak(), "keycloak", "Keycloak", "oidc"],
    [GitLab(), "gitlab", "GitLab", "oauth"],
    [MicrosoftEntraID(), "microsoft-entra-id", "Microsoft Entra ID", "oidc"],
    [Okta(), "okta", "Okta", "oidc"],
    [Facebook(), "facebook", "Facebook", "oauth"],
    [Twitter(), "twitter", "Twitter", "oauth"],
    [LinkedIn(), "linkedin", "LinkedIn", "oidc"],
    [Slack(), "slack", "Slack", "oidc"],
    [Twitch(), "twitch", "Twitch", "oidc"],
    [Spotify(), "spotify", "Spotify", "oauth"],
  ] as const)("%#: %s is %s (%s) with colours and no external logo", (config, id, name, type) => {
    expect(config).toMatchObject({ id, name, type, options: {} })
    expect(config.style).toEqual({ bg: expect.any(String), text: expect.any(String), brandColor: expect.any(String) })
    expect(config.style?.logo).toBeUndefined()
  })

  it("sets checks only where a preset differs from the default", () => {
    const withChecks = [
      GitHub(),
      Google(),
      Discord(),
      Apple(),
      Auth0(),
      Keycloak(),
      GitLab(),
      MicrosoftEntraID(),
      Okta(),
      Facebook(),
      Twitter(),
      LinkedIn(),
      Slack(),
      Twitch(),
      Spotify(),
    ].filter((c) => c.checks)
    expect(withChecks.map((c) => c.id)).toEqual(["linkedin"])
  })

  it("takes the issuer of auth0, keycloak and okta from the options, with no default", () => {
    for (const factory of [Auth0, Keycloak, Okta]) {
      expect(factory().issuer).toBeUndefined()
      expect(factory({ issuer: "https://idp.example" }).issuer).toBe("https://idp.example")
    }
    expect(MicrosoftEntraID({ issuer: "https://login.microsoftonline.com/tenant-1/v2.0" }).issuer).toBe(
      "https://login.microsoftonline.com/tenant-1/v2.0",
    )
  })

  it("asks Twitch for the email, picture and preferred_username ID token claims", () => {
    const claims = endpoint(Twitch().authorization).params?.claims
    expect(claims).toEqual({ id_token: { email: null, picture: null, preferred_username: null } })
    expect(endpoint(Twitch().authorization).params?.scope).toBe("openid user:read:email")
  })

  it("points GitLab at a self-managed instance with baseUrl", () => {
    const config = GitLab({ baseUrl: "https://gitlab.acme.example/" })
    expect(config).toMatchObject({
      authorization: "https://gitlab.acme.example/oauth/authorize?scope=read_user",
      token: "https://gitlab.acme.example/oauth/token",
      userinfo: "https://gitlab.acme.example/api/v4/user",
      options: { baseUrl: "https://gitlab.acme.example/" },
    })
    expect(config).not.toHaveProperty("baseUrl")
  })
})

describe("user options over a preset", () => {
  it("win over preset fields and are kept as options", () => {
    const options = { clientId: "id", clientSecret: "secret", name: "Octo", style: { bg: "#123" } }
    const config = GitHub(options)
    expect(config).toMatchObject({ id: "github", name: "Octo", clientId: "id", clientSecret: "secret" })
    expect(config.style).toEqual({ bg: "#123", text: "#fff", brandColor: "#24292f" })
    expect(config.options).toBe(options)
  })

  it("replace arrays instead of merging them index by index", () => {
    expect(LinkedIn({ checks: ["pkce"] }).checks).toEqual(["pkce"])
    expect(Google({ checks: ["pkce", "nonce"] }).checks).toEqual(["pkce", "nonce"])
    expect(mergeOptions({ list: ["a", "b", "c"] }, { list: ["z"] })).toEqual({ list: ["z"] })
  })

  it("merge endpoint params, and a string endpoint replaces the preset object", () => {
    expect(GitHub({ authorization: { params: { prompt: "consent" } } }).authorization).toEqual({
      url: "https://github.com/login/oauth/authorize",
      params: { scope: "read:user user:email", prompt: "consent" },
    })
    expect(GitHub({ authorization: "https://gh.example/authorize?scope=read:user" }).authorization).toBe(
      "https://gh.example/authorize?scope=read:user",
    )
  })

  it("skip undefined values, rename with id, replace functions, and leave the preset untouched", async () => {
    const config = Discord({ id: "discord-eu", clientId: undefined, profile: (p) => ({ id: `d-${p.id}` }) })
    expect(config.id).toBe("discord-eu")
    expect(config).not.toHaveProperty("clientId")
    expect(await mapProfile(config, recorded.discord)).toEqual({ id: "d-80351110224678912" })
    expect(endpoint(Discord().authorization).params).toEqual({ scope: "identify email" })
    expect(await mapProfile(Discord(), recorded.discord)).toMatchObject({ id: "80351110224678912" })
  })

  it("never copies a __proto__ key", () => {
    const merged = mergeOptions({ a: 1 } as Record<string, unknown>, JSON.parse('{"__proto__": {"polluted": true}}'))
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype)
  })
})

describe("GitHub userinfo", () => {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = []
  let user: Record<string, unknown> = { ...recorded.github, email: null }
  let emailsStatus = 200
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers })
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
    }
    if (req.headers.authorization !== "Bearer gho_token") return send(401, { message: "Bad credentials" })
    if (req.url === "/api/v3/user") return send(200, user)
    if (req.url === "/api/v3/user/emails") {
      return send(emailsStatus, [
        { email: "octo@users.noreply.github.com", primary: false, verified: true, visibility: null },
        { email: "Octo@Example.com", primary: true, verified: true, visibility: "private" },
      ])
    }
    send(404, { message: "Not Found" })
  })
  let baseUrl = ""

  beforeAll(async () => {
    baseUrl = `http://127.0.0.1:${await listen(server)}`
  })
  afterAll(() => close(server))

  function enterprise() {
    const config = GitHub({ enterprise: { baseUrl } })
    const userinfo = config.userinfo
    if (typeof userinfo !== "object" || !userinfo.request || !userinfo.url) throw new Error("no userinfo request")
    const { url, request } = userinfo
    const provider = { id: "github", userinfo: { url } }
    return { config, fetchUser: (accessToken: string) => request({ tokens: { access_token: accessToken }, provider }) }
  }

  it("rewrites every endpoint for GitHub Enterprise Server", () => {
    expect(GitHub({ enterprise: { baseUrl: "https://ghe.acme.example/" } })).toMatchObject({
      issuer: "https://ghe.acme.example/login/oauth",
      authorization: { url: "https://ghe.acme.example/login/oauth/authorize", params: { scope: "read:user user:email" } },
      token: "https://ghe.acme.example/login/oauth/access_token",
      userinfo: { url: "https://ghe.acme.example/api/v3/user" },
    })
  })

  it("picks the primary address from /user/emails when the user's email is private", async () => {
    seen.length = 0
    user = { ...recorded.github, email: null }
    const { config, fetchUser } = enterprise()
    const profile = (await fetchUser("gho_token")) as GitHubProfile
    expect(profile.email).toBe("Octo@Example.com")
    expect(await mapProfile(config, profile)).toEqual({
      id: "1234",
      name: "octocat",
      email: "Octo@Example.com",
      image: "https://avatars.githubusercontent.com/u/1234?v=4",
    })
    expect(seen.map((r) => r.url)).toEqual(["/api/v3/user", "/api/v3/user/emails"])
    for (const request of seen) {
      expect(request.headers.authorization).toBe("Bearer gho_token")
      expect(request.headers["user-agent"]).toBe("authchart")
    }
  })

  it("does not ask for emails when the profile has a public one", async () => {
    seen.length = 0
    user = { ...recorded.github }
    const profile = (await enterprise().fetchUser("gho_token")) as GitHubProfile
    expect(profile.email).toBe("octocat@github.com")
    expect(seen.map((r) => r.url)).toEqual(["/api/v3/user"])
  })

  it("leaves the email null when /user/emails fails", async () => {
    user = { ...recorded.github, email: null }
    emailsStatus = 403
    try {
      const profile = (await enterprise().fetchUser("gho_token")) as GitHubProfile
      expect(profile.email).toBeNull()
    } finally {
      emailsStatus = 200
    }
  })

  it("throws, with the status as the cause, when /user fails", async () => {
    const failure = enterprise().fetchUser("wrong")
    await expect(failure).rejects.toThrow("GitHub user request failed")
    await expect(failure).rejects.toMatchObject({ cause: { status: 401 } })
  })
})

describe("Discord avatars", () => {
  it.each([
    // new usernames: (id >> 22) % 6
    [{ id: "1129504146437865482", avatar: null, discriminator: "0" }, "https://cdn.discordapp.com/embed/avatars/3.png"],
    [{ id: "80351110224678912", avatar: null, discriminator: "0" }, "https://cdn.discordapp.com/embed/avatars/5.png"],
    // legacy tags: discriminator % 5
    [{ id: "80351110224678912", avatar: null, discriminator: "1337" }, "https://cdn.discordapp.com/embed/avatars/2.png"],
    [{ id: "80351110224678912", avatar: null, discriminator: "0005" }, "https://cdn.discordapp.com/embed/avatars/0.png"],
    [
      { id: "80351110224678912", avatar: "a_1269e74af4df7417b13759eae50c83dc", discriminator: "0" },
      "https://cdn.discordapp.com/avatars/80351110224678912/a_1269e74af4df7417b13759eae50c83dc.gif",
    ],
  ])("%j → %s", (user, url) => {
    expect(discordAvatarUrl(user)).toBe(url)
  })

  it("maps a user without an avatar to the default one", async () => {
    const profile = { ...recorded.discord, avatar: null, discriminator: "0", id: "1129504146437865482" }
    const user = await mapProfile(Discord(), profile)
    expect(user.image).toBe("https://cdn.discordapp.com/embed/avatars/3.png")
  })
})

describe("Microsoft Entra ID photo", () => {
  it("is null when the Graph request fails", async () => {
    const probe = createServer()
    const closedPort = await listen(probe)
    await close(probe)
    const realFetch = globalThis.fetch
    const asked: string[] = []
    globalThis.fetch = (input, init) => {
      asked.push(String(input instanceof Request ? input.url : input))
      return realFetch(`http://127.0.0.1:${closedPort}/v1.0/me/photos/48x48/$value`, init)
    }
    try {
      const user = await mapProfile(MicrosoftEntraID(), recorded.entra, { access_token: "eyJ0.graph" })
      expect(user).toEqual({
        id: "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
        name: "Megan Bowen",
        email: "meganb@contoso.example",
        image: null,
      })
      expect(asked).toEqual(["https://graph.microsoft.com/v1.0/me/photos/48x48/$value"])
    } finally {
      globalThis.fetch = realFetch
    }
  })

  it("is a data URL of the photo when Graph returns one, with the configured size", async () => {
    const realFetch = globalThis.fetch
    const asked: { url: string; authorization: string | null }[] = []
    globalThis.fetch = async (input, init) => {
      asked.push({ url: String(input), authorization: new Headers(init?.headers).get("authorization") })
      return new Response(new Uint8Array([0xff, 0xd8, 0xff]), { headers: { "content-type": "image/jpeg" } })
    }
    try {
      const user = await mapProfile(MicrosoftEntraID({ profilePhotoSize: 96 }), recorded.entra, { access_token: "eyJ0.graph" })
      expect(user.image).toBe("data:image/jpeg;base64,/9j/")
      expect(asked).toEqual([{ url: "https://graph.microsoft.com/v1.0/me/photos/96x96/$value", authorization: "Bearer eyJ0.graph" }])
    } finally {
      globalThis.fetch = realFetch
    }
  })
})

describe("Twitch token response", () => {
  it("joins an array scope into a string", async () => {
    const conformed = await conformTwitchTokenResponse(
      Response.json({ access_token: "a", token_type: "bearer", scope: ["openid", "user:read:email"] }),
    )
    expect(await conformed?.json()).toEqual({ access_token: "a", token_type: "bearer", scope: "openid user:read:email" })
  })

  it("leaves a conforming response alone", async () => {
    const response = Response.json({ access_token: "a", token_type: "bearer", scope: "openid" })
    expect(await conformTwitchTokenResponse(response)).toBeUndefined()
    expect(await response.json()).toMatchObject({ scope: "openid" })
  })

  it("turns a { status, message } error into an RFC 6749 error", async () => {
    const conformed = await conformTwitchTokenResponse(
      Response.json({ status: 400, message: "Invalid authorization code" }, { status: 400 }),
    )
    expect(conformed?.status).toBe(400)
    expect(await conformed?.json()).toEqual({ error: "invalid_request", error_description: "Invalid authorization code" })
  })
})
