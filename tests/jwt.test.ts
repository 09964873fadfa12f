import { createCipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto"
import { decode as authDecode, encode as authEncode } from "@auth/core/jwt"
import { CompactEncrypt, EncryptJWT, calculateJwkThumbprint, errors } from "jose"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { MissingSecret } from "../src/errors.js"
import { type GetTokenParams, decode, encode, getToken } from "../src/jwt.js"
import { type ContentEncryption, decryptJwt } from "../src/runtime/crypto/sealed.js"

const S1 = "first-secret-0123456789abcdefghijklmnop"
const S2 = "second-secret-0123456789abcdefghijklmno"
const S3 = "third-secret-0123456789abcdefghijklmnop"
const SALT = "authjs.session-token"
const SECURE = "__Secure-authjs.session-token"
const NOW = 1_800_000_000
const b64 = (data: string | Uint8Array) => Buffer.from(data).toString("base64url")
const headerOf = (token: string): unknown => JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString())
/** The key Auth.js derives (HKDF-SHA256, info `Auth.js Generated Encryption Key (<salt>)`), computed here on its own. */
const key = (secret: string, enc: ContentEncryption = "A256CBC-HS512", salt = SALT) =>
  Buffer.from(hkdfSync("sha256", secret, salt, `Auth.js Generated Encryption Key (${salt})`, enc === "A256GCM" ? 32 : 64))
/** Its RFC 7638 thumbprint, as Auth.js writes it into `kid`. */
const kidOf = (secret: string, enc: ContentEncryption = "A256CBC-HS512") =>
  calculateJwkThumbprint({ kty: "oct", k: b64(key(secret, enc)) }, enc === "A256GCM" ? "sha256" : "sha512")

/** An independent RFC 7518 §5.2.2 / §5.3 sealer, so tests can craft any header and plaintext. */
function seal(header: string | Uint8Array, plaintext: string | Uint8Array, k: Buffer, enc: ContentEncryption = "A256CBC-HS512"): string {
  const h = b64(header)
  const pt = Buffer.from(plaintext)
  if (enc === "A256GCM") {
    const iv = randomBytes(12)
    const c = createCipheriv("aes-256-gcm", k, iv).setAAD(Buffer.from(h))
    const ct = Buffer.concat([c.update(pt), c.final()])
    return [h, "", b64(iv), b64(ct), b64(c.getAuthTag())].join(".")
  }
  const iv = randomBytes(16)
  const c = createCipheriv("aes-256-cbc", k.subarray(32), iv)
  const ct = Buffer.concat([c.update(pt), c.final()])
  const al = Buffer.alloc(8)
  al.writeUInt32BE(h.length * 8, 4)
  const tag = createHmac("sha512", k.subarray(0, 32)).update(h).update(iv).update(ct).update(al).digest()
  return [h, "", b64(iv), b64(ct), b64(tag.subarray(0, 32))].join(".")
}

describe("encode / decode", () => {
  it("round-trips claims and sets iat, exp and a fresh jti", async () => {
    const before = Math.floor(Date.now() / 1000)
    const token = await encode({ token: { sub: "u1", name: "Zoë 🦊", jti: "old", exp: 1 }, secret: S1, salt: SALT, maxAge: 60 })
    const claims = await decode({ token, secret: S1, salt: SALT })
    expect(claims).toMatchObject({ sub: "u1", name: "Zoë 🦊" })
    expect(claims?.jti).toMatch(/^[0-9a-f-]{36}$/)
    expect(claims?.iat).toBeGreaterThanOrEqual(before)
    expect(claims?.exp).toBe(claims!.iat! + 60)
    expect(headerOf(token)).toEqual({ alg: "dir", enc: "A256CBC-HS512", kid: await kidOf(S1) })
    expect(token.split(".")[1]).toBe("")
  })

  it("returns null for an empty or missing token", async () => {
    expect(await decode({ token: "", secret: S1, salt: SALT })).toBeNull()
    expect(await decode({ secret: S1, salt: SALT })).toBeNull()
  })

  it("rotates secrets: the first encrypts, old tokens still decode, unknown secrets throw", async () => {
    const fresh = await encode({ token: { sub: "new" }, secret: [S2, S1], salt: SALT })
    const old = await encode({ token: { sub: "old" }, secret: S1, salt: SALT })
    expect(headerOf(fresh)).toMatchObject({ kid: await kidOf(S2) })
    expect(await decode({ token: old, secret: [S2, S1], salt: SALT })).toMatchObject({ sub: "old" })
    expect(await decode({ token: fresh, secret: [S2, S1], salt: SALT })).toMatchObject({ sub: "new" })
    await expect(decode({ token: fresh, secret: [S3, S1], salt: SALT })).rejects.toThrow("no matching decryption secret")
  })

  it("tries every secret for a token without kid (Auth.js tried only the first)", async () => {
    const token = await new EncryptJWT({ sub: "nokid" }).setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512" }).encrypt(key(S1))
    expect(await decode({ token, secret: [S3, S2, S1], salt: SALT })).toEqual({ sub: "nokid" })
    await expect(authDecode({ token, secret: [S3, S2, S1], salt: SALT })).rejects.toThrow()
    await expect(decode({ token, secret: [S3, S2], salt: SALT })).rejects.toBeInstanceOf(errors.JWEDecryptionFailed)
  })

  it("rejects a token whose exp is more than 15 s past, accepts one within the tolerance", async () => {
    vi.useFakeTimers({ toFake: ["Date"] })
    try {
      vi.setSystemTime(NOW * 1000)
      const token = await encode({ token: {}, secret: S1, salt: SALT, maxAge: 100 })
      vi.setSystemTime((NOW + 100 + 14) * 1000)
      expect(await decode({ token, secret: S1, salt: SALT })).toMatchObject({ exp: NOW + 100 })
      vi.setSystemTime((NOW + 100 + 15) * 1000)
      await expect(decode({ token, secret: S1, salt: SALT })).rejects.toBeInstanceOf(errors.JWTExpired)
      await expect(authDecode({ token, secret: S1, salt: SALT })).rejects.toBeInstanceOf(errors.JWTExpired)
    } finally {
      vi.useRealTimers()
    }
  })

  it("rejects a token decoded with another salt", async () => {
    const token = await encode({ token: { sub: "u" }, secret: S1, salt: SALT })
    await expect(decode({ token, secret: S1, salt: SECURE })).rejects.toThrow("no matching decryption secret")
  })
})

describe("interop with @auth/core", () => {
  const secretSets: (string | string[])[] = [S1, [S2, S1], [S3, S2, S1]]
  it.each([SALT, SECURE])("tokens cross both ways with salt %s", async (salt) => {
    for (const secret of secretSets) {
      const theirs = await authEncode({ token: { sub: "a", email: "a@x.io" }, secret, salt })
      const ours = await encode({ token: { sub: "a", email: "a@x.io" }, secret, salt })
      expect(await decode({ token: theirs, secret, salt })).toEqual(await authDecode({ token: theirs, secret, salt }))
      expect(await authDecode({ token: ours, secret, salt })).toEqual(await decode({ token: ours, secret, salt }))
      expect(ours.split(".")[0]).toBe(theirs.split(".")[0])
      const rotated = [S3, ...(typeof secret === "string" ? [secret] : secret)]
      expect(await decode({ token: theirs, secret: rotated, salt })).toMatchObject({ sub: "a" })
      expect(await authDecode({ token: ours, secret: rotated, salt })).toMatchObject({ sub: "a" })
    }
  })

  it("reads an A256GCM token under the kid Auth.js gives its 32-byte key (sha256 thumbprint)", async () => {
    const token = await new EncryptJWT({ sub: "gcm" })
      .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid: await kidOf(S1, "A256GCM") })
      .encrypt(key(S1, "A256GCM"))
    expect(await decode({ token, secret: [S2, S1], salt: SALT })).toEqual({ sub: "gcm" })
    expect(await authDecode({ token, secret: [S2, S1], salt: SALT })).toEqual({ sub: "gcm" })
  })
})

/** jose.jwtDecrypt with Auth.js' options and resolver; a kid-less token may use any secret (authchart). */
async function reference(token: string, secrets: string[], salt: string): Promise<string | undefined> {
  for (let i = 0; i < secrets.length; i++) {
    try {
      return JSON.stringify(await authDecode({ token, secret: secrets.slice(i), salt }))
    } catch {}
  }
  return undefined
}

function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe("decode agrees with @auth/core's decode (jose.jwtDecrypt with Auth.js' options)", () => {
  const SEED = Number(process.env.JWT_SEED ?? 20260722)
  const rand = prng(SEED)
  const int = (n: number) => Math.floor(rand() * n)
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!
  const CHARS = 'aZ09-_ éü漢字🦊\u0000"\\\n'
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
  const str = (max: number) => Array.from({ length: int(max) }, () => pick([...CHARS])).join("")
  const value = (depth: number): unknown =>
    pick([
      () => str(20),
      () => rand() * 1e6 - 5e5,
      () => int(1000),
      () => rand() < 0.5,
      () => null,
      () => (depth > 2 ? 0 : Array.from({ length: int(4) }, () => value(depth + 1))),
      () => (depth > 2 ? "" : object(depth + 1, 4)),
    ])()
  const object = (depth: number, keys: number) => Object.fromEntries(Array.from({ length: int(keys) }, () => [str(8), value(depth)]))
  const claim = () => pick([undefined, NOW - 15, NOW - 14, NOW + 15, NOW + 16, NOW + int(2000) - 1000, String(NOW)])
  const payload = (): Record<string, unknown> => {
    const p: Record<string, unknown> = { ...object(0, 12), big: str(pick([0, 10, 3000])) }
    for (const c of ["exp", "nbf", "iat"]) if (rand() < 0.3) p[c] = claim()
    return p
  }

  const producers: ((p: Record<string, unknown>) => Promise<string>)[] = [
    (p) => encode({ token: p, secret: S1, salt: SALT }),
    (p) => authEncode({ token: p, secret: S1, salt: SALT }),
    async (p) =>
      new EncryptJWT(p).setProtectedHeader({ alg: "dir", enc: "A256GCM", kid: await kidOf(S1, "A256GCM") }).encrypt(key(S1, "A256GCM")),
    (p) => new EncryptJWT(p).setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512" }).encrypt(key(S1)),
    (p) => new EncryptJWT(p).setProtectedHeader({ alg: "dir", enc: "A256GCM" }).encrypt(key(S1, "A256GCM")),
    (p) => new EncryptJWT(p).setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", typ: "JWT" }).encrypt(key(S1)),
    (p) => new EncryptJWT(p).setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", zip: "DEF" }).encrypt(key(S1)),
    async (p) => seal(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512", crit: ["exp"], exp: 1 }), JSON.stringify(p), key(S1)),
  ]

  const reheader = (token: string, patch: Record<string, unknown>) => {
    const parts = token.split(".")
    parts[0] = b64(JSON.stringify({ ...(headerOf(token) as object), ...patch }))
    return parts.join(".")
  }
  const edit = (token: string, part: number, f: (s: string) => string) => {
    const parts = token.split(".")
    parts[part] = f(parts[part]!)
    return parts.join(".")
  }
  const flip = (s: string) => {
    const at = int(s.length + 1)
    const c = rand() < 0.8 ? pick([...B64]) : pick(["=", " ", "+", "/", "!", "%", "\n"])
    return s.slice(0, at) + c + s.slice(at + (at < s.length ? 1 : 0))
  }
  /** Same decoded bytes: change only the low 2 bits of the tag's last char, unused in 43 (CBC) or 22 (GCM) chars. */
  const overflow = (s: string) => s.slice(0, -1) + B64[(B64.indexOf(s.at(-1)!) & ~3) | int(4)]
  const mutations = (token: string): string[] => {
    const parts = token.split(".")
    const [i, j] = [int(5), int(5)]
    const swapped = [...parts]
    ;[swapped[i], swapped[j]] = [parts[j]!, parts[i]!]
    return [
      token,
      ...[0, 1, 2, 3, 4].map((k) => edit(token, k, flip)),
      token.slice(0, 1 + int(token.length - 1)),
      swapped.join("."),
      edit(token, 4, overflow),
      edit(token, pick([2, 3, 4]), (s) => `${s.slice(0, 5)} ${s.slice(5)}`),
      edit(token, 4, (s) => `${s}=`),
      edit(token, pick([0, 2, 3, 4]), (s) => s + pick([...B64])),
      reheader(token, { zip: "DEF" }),
      reheader(token, { crit: ["kid"] }),
      reheader(token, { enc: pick(["A256GCM", "A128GCM", "A256CBC-HS512"]) }),
      reheader(token, { kid: undefined }),
      `${token}.`,
    ]
  }
  const secretSets = [[S1], [S2, S1], [S1, S2], [S2], [S3, S2]]

  type Stats = { tried: number; ok: number }

  async function compare(token: string, secrets: string[], stats: Stats) {
    const expected = await reference(token, secrets, SALT)
    const got = await decryptJwt(token, secrets, SALT).then(
      (payload) => JSON.stringify(payload),
      () => undefined,
    )
    expect({ token, secrets, got }).toEqual({ token, secrets, got: expected })
    stats.tried++
    if (expected !== undefined) stats.ok++
  }

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] })
    vi.setSystemTime(NOW * 1000)
  })
  afterEach(() => vi.useRealTimers())

  it(`agrees on 200 random payloads and their tampered tokens (seed ${SEED})`, async () => {
    const stats: Stats = { tried: 0, ok: 0 }
    for (let n = 0; n < 200; n++) {
      const token = await producers[n % producers.length]!(payload())
      for (const candidate of mutations(token)) await compare(candidate, pick(secretSets), stats)
    }
    expect(stats.tried).toBeGreaterThanOrEqual(3000)
    expect(stats.ok).toBeGreaterThanOrEqual(200)
  }, 120_000)

  it("agrees on hand-crafted headers and plaintexts", async () => {
    const kid = await kidOf(S1)
    const good = JSON.stringify({ alg: "dir", enc: "A256CBC-HS512", kid })
    const headers: (string | Uint8Array)[] = [
      good,
      `\uFEFF${good}`,
      `{"alg":"dir","enc":"A256CBC-HS512","kid":"nope","kid":"${kid}"}`,
      '{"alg":"dir","enc":"A256CBC-HS512","kid":null}',
      '{"alg":"dir","enc":"A256CBC-HS512","kid":7}',
      '{"alg":"A256KW","enc":"A256CBC-HS512"}',
      '{"alg":"dir","enc":"A256CBC-HS512","__proto__":{}}',
      `{"alg":"dir","enc":"A256CBC-HS512","iss":"x"}`,
      `{"alg":"dir","enc":"A256CBC-HS512","sub":"u","typ":"JWT"}`,
      '{"alg":"dir","enc":"A256CBC-HS512","crit":[]}',
      "[]",
      new Uint8Array([0x7b, 0xff, 0x7d]),
    ]
    const bodies: (string | Uint8Array)[] = [
      "{}",
      '{"sub":"u"}',
      "[]",
      '"s"',
      "1",
      "null",
      "",
      "{",
      new Uint8Array([0x7b, 0xff, 0x7d]),
      '\uFEFF{"a":1}',
      '{"__proto__":{"x":1}}',
      '{"exp":"1"}',
      '{"iat":"1"}',
      '{"iat":null}',
      `{"nbf":${NOW + 15}}`,
      `{"nbf":${NOW + 16}}`,
      `{"exp":${NOW - 15}}`,
      `{"exp":${NOW - 14}}`,
      '{"exp":1e999}',
      `{"iss":"y","exp":${NOW + 9}}`,
      '{"a":1,"a":2}',
    ]
    const tokens: string[] = []
    for (const h of headers) tokens.push(seal(h, '{"sub":"u"}', key(S1)))
    for (const body of bodies) tokens.push(seal(good, body, key(S1)))
    const gcm = JSON.stringify({ alg: "dir", enc: "A256GCM" })
    tokens.push(seal(gcm, "{}", key(S1, "A256GCM"), "A256GCM"), seal(good, "{}", key(S1, "A256GCM"), "A256GCM"))
    tokens.push(
      await new CompactEncrypt(new TextEncoder().encode('{"z":1}'))
        .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
        .encrypt(key(S1, "A256GCM")),
    )
    const base = seal(good, "{}", key(S1))
    tokens.push(
      edit(base, 1, () => "AAAA"),
      edit(base, 2, () => ""),
      edit(base, 4, () => ""),
      edit(base, 2, () => b64(randomBytes(12))),
    )
    tokens.push(
      edit(tokens.at(-5)!, 4, (s) => s.slice(0, -2)),
      "....",
      "a.b.c.d.e",
      base.replaceAll(".", ".."),
    )
    const block48 = seal(good, JSON.stringify({ sub: "0123456789012345678901234567" }), key(S1))
    tokens.push(
      block48,
      edit(block48, 3, (s) => `${s}A`),
      edit(block48, 3, (s) => `${s}==`),
      edit(block48, 0, (s) => `${s}A`),
    )
    tokens.push(
      edit(block48, 2, (s) => `${s.slice(0, 4)}\n${s.slice(4)}`),
      edit(block48, 4, (s) => `${s}=`),
    )
    const stats: Stats = { tried: 0, ok: 0 }
    for (const token of tokens) for (const secrets of [[S1], [S2, S1], []]) await compare(token, secrets, stats)
    expect(stats.tried).toBe(3 * tokens.length)
    expect(stats.ok).toBeGreaterThanOrEqual(13)
  }, 60_000)
})

describe("getToken", () => {
  const ENV = ["AUTH_SECRET", "AUTH_SECRET_1", "AUTH_SECRET_2", "AUTH_SECRET_3", "AUTH_URL"] as const
  const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]))
  beforeEach(() => {
    for (const name of ENV) delete process.env[name]
  })
  afterEach(() => {
    for (const name of ENV) {
      if (saved[name] === undefined) delete process.env[name]
      else process.env[name] = saved[name]
    }
  })
  const request = (cookie: string, url = "http://app.test/api") => new Request(url, { headers: { cookie } })
  const token = (salt = SALT, big = "") => encode({ token: { sub: "u1", big }, secret: S1, salt })

  it("reads the session cookie", async () => {
    expect(await getToken({ req: request(`${SALT}=${await token()}`), secret: S1 })).toMatchObject({ sub: "u1" })
  })

  it("reads chunked cookies .0/.1 and ignores cookies that merely share the prefix", async () => {
    const t = await token(SALT, "x".repeat(5000))
    const half = t.length >> 1
    const chunked = `${SALT}.0=${t.slice(0, half)}; ${SALT}.1=${t.slice(half)}; ${SALT}-x=junk`
    expect(await getToken({ req: request(chunked), secret: S1 })).toMatchObject({ sub: "u1" })
    expect(await getToken({ req: request(`${SALT}-x=${t}`), secret: S1 })).toBeNull()
    expect(await getToken({ req: request(`${SALT}=${t}; ${SALT}-x=junk`), secret: S1 })).toMatchObject({ sub: "u1" })
  })

  it("falls back to Authorization: Bearer, percent-decoded; malformed escapes give null", async () => {
    const t = await token()
    const headers = { authorization: `Bearer ${encodeURIComponent(t)}` }
    expect(await getToken({ req: { headers }, secret: S1 })).toMatchObject({ sub: "u1" })
    const bad = { headers: { authorization: "Bearer %E0%A4%A" } }
    expect(await getToken({ req: bad, secret: S1 })).toBeNull()
    expect(await getToken({ req: bad, raw: true })).toBeNull()
  })

  it("returns the raw token without needing a secret", async () => {
    const t = await token()
    expect(await getToken({ req: request(`${SALT}=${t}`), raw: true })).toBe(t)
  })

  it("picks the __Secure- cookie from an https URL or AUTH_URL", async () => {
    const t = await token(SECURE)
    expect(await getToken({ req: request(`${SECURE}=${t}`, "https://app.test/"), secret: S1 })).toMatchObject({ sub: "u1" })
    expect(await getToken({ req: request(`${SECURE}=${t}`), secret: S1 })).toBeNull()
    process.env.AUTH_URL = "https://app.test/auth"
    expect(await getToken({ req: { headers: { cookie: `${SECURE}=${t}` } }, secret: S1 })).toMatchObject({ sub: "u1" })
  })

  it("takes secrets from AUTH_SECRET_* and throws MissingSecret without any", async () => {
    const req = request(`${SALT}=${await token()}`)
    await expect(getToken({ req })).rejects.toBeInstanceOf(MissingSecret)
    process.env.AUTH_SECRET_1 = S2
    process.env.AUTH_SECRET = S1
    expect(await getToken({ req })).toMatchObject({ sub: "u1" })
  })

  it("returns null for an undecodable token and uses a custom decode", async () => {
    expect(await getToken({ req: request(`${SALT}=garbage`), secret: S1 })).toBeNull()
    const custom = vi.fn(() => ({ sub: "custom" }))
    expect(await getToken({ req: request(`${SALT}=t`), secret: S1, decode: custom })).toEqual({ sub: "custom" })
    expect(custom).toHaveBeenCalledWith({ token: "t", secret: S1, salt: SALT })
    await expect(getToken({} as unknown as GetTokenParams)).rejects.toThrow(TypeError)
  })
})
