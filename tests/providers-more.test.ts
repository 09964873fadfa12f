/**
 * The fifteen presets added for migrating Auth.js apps: each maps a recorded profile (the JSON its
 * provider's API documents for the userinfo call, trimmed) to the user authchart stores, with the id
 * always a string; the custom userinfo requests (HubSpot, Dropbox, VK) are run against a
 * loopback server standing in for the provider's API.
 */
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { OAuthConfig, UserinfoRequestContext } from "../src/providers/oauth-types.js"
import Atlassian from "../src/providers/atlassian.js"
import Bitbucket from "../src/providers/bitbucket.js"
import Box from "../src/providers/box.js"
import Dropbox from "../src/providers/dropbox.js"
import HubSpot from "../src/providers/hubspot.js"
import Kakao from "../src/providers/kakao.js"
import LINE from "../src/providers/line.js"
import Mastodon from "../src/providers/mastodon.js"
import Naver from "../src/providers/naver.js"
import Notion from "../src/providers/notion.js"
import Reddit from "../src/providers/reddit.js"
import VK from "../src/providers/vk.js"
import WordPress from "../src/providers/wordpress.js"
import Yandex from "../src/providers/yandex.js"
import Zoom from "../src/providers/zoom.js"
import type { User } from "../src/types.js"

interface Case {
  preset: OAuthConfig<never>
  profile: Record<string, unknown>
  user: User
}

const cases: Record<string, Case> = {
  hubspot: {
    preset: HubSpot() as OAuthConfig<never>,
    profile: {
      token: "CJ…",
      user: "jane@acme.example",
      hub_domain: "acme.example",
      scopes: ["oauth"],
      hub_id: 62515,
      app_id: 456,
      expires_in: 1754,
      user_id: 123,
      token_type: "access",
    },
    user: { id: "123", name: "jane@acme.example", email: "jane@acme.example", image: null },
  },
  notion: {
    preset: Notion() as OAuthConfig<never>,
    profile: {
      object: "user",
      id: "e79a0b74-3aba-4149-9f74-0bb5791a6ee6",
      type: "person",
      name: "Avocado Lovelace",
      avatar_url: "https://secure.notion-static.com/e6a352a8-8381-44d0-a1dc-9ed80e62b53d.jpg",
      person: { email: "avo@example.org" },
    },
    user: {
      id: "e79a0b74-3aba-4149-9f74-0bb5791a6ee6",
      name: "Avocado Lovelace",
      email: "avo@example.org",
      image: "https://secure.notion-static.com/e6a352a8-8381-44d0-a1dc-9ed80e62b53d.jpg",
    },
  },
  zoom: {
    preset: Zoom() as OAuthConfig<never>,
    profile: {
      id: "KDcuGIm1QgePTO8WbOqwIQ",
      first_name: "Jill",
      last_name: "Chill",
      display_name: "Jill Chill",
      email: "jchill@example.com",
      type: 2,
      pic_url: "https://example.com/photo.jpg",
      account_id: "q6gBJVO5TzexKYTb_I2rpg",
      timezone: "America/Los_Angeles",
      verified: 1,
      status: "active",
    },
    user: { id: "KDcuGIm1QgePTO8WbOqwIQ", name: "Jill Chill", email: "jchill@example.com", image: "https://example.com/photo.jpg" },
  },
  dropbox: {
    preset: Dropbox() as OAuthConfig<never>,
    profile: {
      account_id: "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc",
      name: {
        abbreviated_name: "FL",
        display_name: "Franz Ferdinand (Personal)",
        familiar_name: "Franz",
        given_name: "Franz",
        surname: "Ferdinand",
      },
      email: "franz@dropbox.com",
      email_verified: true,
      disabled: false,
      locale: "en",
      country: "US",
      profile_photo_url:
        "https://dl-web.dropbox.com/account_photo/get/dbaphid%3AAAHWGmIXV3sUuOmBfTz0wPsiqHUpBWvv3ZA?vers=1556069330102&size=128x128",
    },
    user: {
      id: "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc",
      name: "Franz Ferdinand (Personal)",
      email: "franz@dropbox.com",
      image: "https://dl-web.dropbox.com/account_photo/get/dbaphid%3AAAHWGmIXV3sUuOmBfTz0wPsiqHUpBWvv3ZA?vers=1556069330102&size=128x128",
    },
  },
  box: {
    preset: Box() as OAuthConfig<never>,
    profile: {
      type: "user",
      id: "11446498",
      name: "Aaron Levie",
      login: "ceo@example.com",
      created_at: "2012-12-12T10:53:43-08:00",
      language: "en",
      timezone: "Africa/Bujumbura",
      space_amount: 11345156112,
      status: "active",
      avatar_url: "https://www.box.com/api/avatar/large/181216415",
    },
    user: { id: "11446498", name: "Aaron Levie", email: "ceo@example.com", image: "https://www.box.com/api/avatar/large/181216415" },
  },
  atlassian: {
    preset: Atlassian() as OAuthConfig<never>,
    profile: {
      account_type: "atlassian",
      account_id: "112233:aa-bb-cc",
      email: "mia@example.com",
      name: "Mia Krystof",
      picture: "https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/112233/1234abcd.png",
      account_status: "active",
      nickname: "mkrystof",
      zoneinfo: "Australia/Sydney",
      locale: "en-US",
      extended_profile: { job_title: "Designer" },
    },
    user: {
      id: "112233:aa-bb-cc",
      name: "Mia Krystof",
      email: "mia@example.com",
      image: "https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/112233/1234abcd.png",
    },
  },
  bitbucket: {
    preset: Bitbucket() as OAuthConfig<never>,
    profile: {
      type: "user",
      uuid: "{d301aafa-d676-4ee0-88be-962be7417567}",
      account_id: "557058:1d6a6e8e-fa39-4b58-b9ef-8d4ad0c3d2e7",
      nickname: "evzijst",
      display_name: "Erik van Zijst",
      account_status: "active",
      created_on: "2010-07-04T04:01:51+00:00",
      links: { avatar: { href: "https://secure.gravatar.com/avatar/a1.png" }, html: { href: "https://bitbucket.org/%7Bd301aafa%7D/" } },
    },
    user: {
      id: "557058:1d6a6e8e-fa39-4b58-b9ef-8d4ad0c3d2e7",
      name: "Erik van Zijst",
      email: null,
      image: "https://secure.gravatar.com/avatar/a1.png",
    },
  },
  reddit: {
    preset: Reddit() as OAuthConfig<never>,
    profile: {
      id: "1w72",
      name: "spez",
      icon_img:
        "https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_snoo.png?width=256&amp;height=256&amp;crop=256:256,smart&amp;s=abc",
      snoovatar_img: "",
      created_utc: 1118030400,
      total_karma: 936443,
      verified: true,
      has_verified_email: true,
    },
    user: { id: "1w72", name: "spez", email: null, image: "https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_snoo.png" },
  },
  yandex: {
    preset: Yandex() as OAuthConfig<never>,
    profile: {
      id: "1000034426",
      login: "ivan",
      client_id: "4760187d81bc4b7799476b42b5103713",
      psuid: "1.AAceCw.tbHgw5DtJ9_zeqPrk-Ba2w.qPWSRC5v2t2IaksPJgnge",
      display_name: "Ivan",
      real_name: "Ivan Ivanov",
      first_name: "Ivan",
      last_name: "Ivanov",
      default_email: "test@yandex.ru",
      emails: ["test@yandex.ru", "other-test@yandex.ru"],
      default_avatar_id: "131652443",
      is_avatar_empty: false,
    },
    user: { id: "1000034426", name: "Ivan", email: "test@yandex.ru", image: "https://avatars.yandex.net/get-yapic/131652443/islands-200" },
  },
  vk: {
    preset: VK() as OAuthConfig<never>,
    profile: {
      id: 210700286,
      first_name: "Lindsey",
      last_name: "Stirling",
      photo_100: "https://sun9-1.userapi.com/s/v1/ig2/abc.jpg?size=100x100",
      can_access_closed: true,
      is_closed: false,
      email: "lindsey@example.com",
    },
    user: {
      id: "210700286",
      name: "Lindsey Stirling",
      email: "lindsey@example.com",
      image: "https://sun9-1.userapi.com/s/v1/ig2/abc.jpg?size=100x100",
    },
  },
  line: {
    preset: LINE() as OAuthConfig<never>,
    profile: {
      iss: "https://access.line.me",
      sub: "U1234567890abcdef1234567890abcdef",
      aud: "1234567890",
      exp: 1504169092,
      iat: 1504263657,
      amr: ["pwd"],
      name: "Taro Line",
      picture: "https://sample_line.me/aBcdefg123456",
      email: "taro.line@example.com",
    },
    user: {
      id: "U1234567890abcdef1234567890abcdef",
      name: "Taro Line",
      email: "taro.line@example.com",
      image: "https://sample_line.me/aBcdefg123456",
    },
  },
  kakao: {
    preset: Kakao() as OAuthConfig<never>,
    profile: {
      id: 123456789,
      connected_at: "2022-04-11T01:45:28Z",
      kakao_account: {
        profile: {
          nickname: "홍길동",
          thumbnail_image_url: "http://yyy.kakao.com/.../img_110x110.jpg",
          profile_image_url: "http://yyy.kakao.com/dn/.../img_640x640.jpg",
          is_default_image: false,
        },
        email: "sample@sample.com",
        is_email_valid: true,
        is_email_verified: true,
      },
    },
    user: { id: "123456789", name: "홍길동", email: "sample@sample.com", image: "http://yyy.kakao.com/dn/.../img_640x640.jpg" },
  },
  naver: {
    preset: Naver() as OAuthConfig<never>,
    profile: {
      resultcode: "00",
      message: "success",
      response: {
        id: "32742776",
        nickname: "OPENAPI",
        email: "openapi@naver.com",
        gender: "F",
        age: "40-49",
        birthday: "10-01",
        profile_image: "https://ssl.pstatic.net/static/pwe/address/nodata_33x33.gif",
      },
    },
    user: {
      id: "32742776",
      name: "OPENAPI",
      email: "openapi@naver.com",
      image: "https://ssl.pstatic.net/static/pwe/address/nodata_33x33.gif",
    },
  },
  mastodon: {
    preset: Mastodon({ issuer: "https://mastodon.example" }) as OAuthConfig<never>,
    profile: {
      id: "14715",
      username: "trwnh",
      acct: "trwnh",
      display_name: "infinite love ⴳ",
      locked: false,
      bot: false,
      created_at: "2016-11-24T10:02:12.085Z",
      url: "https://mastodon.social/@trwnh",
      avatar: "https://files.mastodon.social/accounts/avatars/000/014/715/original/34aa222f4ae2e0a9.png",
      avatar_static: "https://files.mastodon.social/accounts/avatars/000/014/715/original/34aa222f4ae2e0a9.png",
      followers_count: 821,
      following_count: 178,
      statuses_count: 33120,
    },
    user: {
      id: "14715",
      name: "trwnh",
      email: null,
      image: "https://files.mastodon.social/accounts/avatars/000/014/715/original/34aa222f4ae2e0a9.png",
    },
  },
  wordpress: {
    preset: WordPress() as OAuthConfig<never>,
    profile: {
      ID: 18342963,
      display_name: "Jane Doe",
      username: "janedoe",
      email: "jane@example.com",
      primary_blog: 106707880,
      language: "en",
      avatar_URL: "https://0.gravatar.com/avatar/abc?s=96&d=identicon",
      profile_URL: "https://en.gravatar.com/janedoe",
      verified: true,
      email_verified: true,
    },
    user: { id: "18342963", name: "Jane Doe", email: "jane@example.com", image: "https://0.gravatar.com/avatar/abc?s=96&d=identicon" },
  },
}

describe.each(Object.entries(cases))("the %s preset", (id, { preset, profile, user }) => {
  it("maps its recorded profile to a user whose id is a string", async () => {
    expect(preset.id).toBe(id)
    const mapped = await preset.profile?.(profile as never, {})
    expect(mapped).toEqual(user)
    expect(typeof mapped?.id).toBe("string")
  })
})

describe("the 30+ native presets", () => {
  it("are all importable as authchart/providers/<id>", async () => {
    const ids = [
      ...Object.keys(cases),
      "apple",
      "auth0",
      "discord",
      "facebook",
      "github",
      "gitlab",
      "google",
      "keycloak",
      "linkedin",
      "microsoft-entra-id",
      "okta",
      "slack",
      "spotify",
      "twitch",
      "twitter",
    ]
    expect(ids.length).toBeGreaterThanOrEqual(30)
    for (const id of ids) {
      const module = (await import(`authchart/providers/${id}`)) as { default: (o: object) => { id: string } }
      expect(module.default({ issuer: "https://idp.example" }).id).toBe(id)
    }
  })
})

describe("custom userinfo requests, against a loopback stand-in for the provider's API", () => {
  let server: Server
  let base = ""
  const seen: { method: string; url: string; authorization?: string; notionVersion?: string }[] = []
  const bodies: Record<string, unknown> = {
    "/oauth/v1/access-tokens/tok-1": cases.hubspot?.profile,
    "/2/users/get_current_account": cases.dropbox?.profile,
    "/method/users.get": {
      response: [{ id: 210700286, first_name: "Lindsey", last_name: "Stirling", photo_100: "https://vk.example/p.jpg" }],
    },
  }
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const url = new URL(req.url ?? "/", "http://x")
      seen.push({
        method: req.method ?? "",
        url: url.pathname,
        authorization: req.headers.authorization,
        notionVersion: req.headers["notion-version"] as string | undefined,
      })
      const body = bodies[url.pathname]
      res.writeHead(body ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify(body ?? { error: "not found" }))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  function request(preset: OAuthConfig<never>, context: UserinfoRequestContext): Promise<object> {
    const userinfo = preset.userinfo
    if (typeof userinfo !== "object" || !userinfo.request) throw new Error(`${preset.id} has no userinfo request`)
    return Promise.resolve(userinfo.request(context))
  }

  it("HubSpot reads the token's metadata with the token in the path", async () => {
    seen.length = 0
    const profile = await request(HubSpot() as OAuthConfig<never>, {
      tokens: { access_token: "tok-1" },
      provider: { id: "hubspot", userinfo: { url: `${base}/oauth/v1/access-tokens` } },
    })
    expect(profile).toEqual(cases.hubspot?.profile)
    expect(seen).toEqual([{ method: "GET", url: "/oauth/v1/access-tokens/tok-1", authorization: undefined, notionVersion: undefined }])
  })

  it("Dropbox POSTs with the bearer token", async () => {
    seen.length = 0
    const profile = await request(Dropbox() as OAuthConfig<never>, {
      tokens: { access_token: "tok-2" },
      provider: { id: "dropbox", userinfo: { url: `${base}/2/users/get_current_account` } },
    })
    expect(profile).toEqual(cases.dropbox?.profile)
    expect(seen).toEqual([{ method: "POST", url: "/2/users/get_current_account", authorization: "Bearer tok-2", notionVersion: undefined }])
  })

  it("VK takes the first user and the email from the token response", async () => {
    const profile = await request(VK() as OAuthConfig<never>, {
      tokens: { access_token: "tok-3", email: "lindsey@example.com" },
      provider: { id: "vk", userinfo: { url: `${base}/method/users.get?fields=photo_100&v=5.131` } },
    })
    expect(profile).toMatchObject({ id: 210700286, email: "lindsey@example.com" })
  })

  it("an error status is an error, not a profile", async () => {
    const failing = request(Dropbox() as OAuthConfig<never>, {
      tokens: { access_token: "t" },
      provider: { id: "dropbox", userinfo: { url: `${base}/nope` } },
    })
    await expect(failing).rejects.toThrow("The userinfo request failed")
  })
})
