/**
 * Pages in the user's language: the catalogues (`authchart/messages`), how a request's language is
 * chosen (`pages.locale`, else `Accept-Language` with weights and region fallback, else English), and the
 * pages `Auth()` draws with it (`<html lang>`, `Vary: Accept-Language`).
 */
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "../src/index.js"
import { type Language, type Messages, de, en, english, plural, text } from "../src/messages/index.js"
import Credentials from "../src/providers/credentials.js"
import { acceptedRanges, chooseLanguage, lookup, resolveLanguages } from "../src/runtime/http/language.js"
import { ORIGIN, SECRET } from "./helpers.js"

const headers = (acceptLanguage?: string) => new Headers(acceptLanguage === undefined ? {} : { "accept-language": acceptLanguage })
const chosen = (acceptLanguage: string | undefined, pages?: AuthConfig["pages"]) =>
  chooseLanguage(resolveLanguages(pages), headers(acceptLanguage)).language.locale

const placeholders = (value: string) => [...value.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()

describe("the catalogues", () => {
  it("German has every English key, each with the same placeholders, and a text of its own", () => {
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort())
    for (const key of Object.keys(en) as (keyof Messages)[]) {
      expect(placeholders(de[key]), key).toEqual(placeholders(en[key]))
      expect(de[key].trim(), key).not.toBe("")
    }
  })

  it("a missing or misspelt key in a language of your own is a type error", () => {
    // @ts-expect-error: "signin.title" and every other key are missing
    const partial: Messages = { "signout.title": "Déconnexion" }
    // @ts-expect-error: no such key
    const misspelt: Messages = { ...en, "signin.titel": "Connexion" }
    expect(Object.keys(partial)).toEqual(["signout.title"])
    expect(misspelt["signin.title"]).toBe("Sign In")
  })

  it("text fills placeholders; its values are typed by the English text", () => {
    const german: Language = { locale: "de", messages: de }
    expect(text(english, "signin.submit", { provider: "GitHub" })).toBe("Sign in with GitHub")
    expect(text(german, "signin.submit", { provider: "GitHub" })).toBe("Mit GitHub anmelden")
    expect(text(german, "signout.title")).toBe("Abmelden")
    // @ts-expect-error: "signin.submit" needs its provider
    expect(text(english, "signin.submit")).toBe("Sign in with {provider}")
  })

  it("plural picks the language's form: one and other", () => {
    const german: Language = { locale: "de", messages: de }
    expect([0, 1, 2].map((n) => plural(english, "step.attemptsLeft", n))).toEqual([
      "0 attempts left.",
      "1 attempt left.",
      "2 attempts left.",
    ])
    expect([1, 5].map((n) => plural(german, "step.attemptsLeft", n))).toEqual(["Noch 1 Versuch.", "Noch 5 Versuche."])
    expect(plural(german, "signin.error.retryIn", 1, { minutes: 1 })).toBe("Zu viele Versuche. Bitte versuchen Sie es in 1 Minute erneut.")
  })

  it("a catalogue built without its type that lacks a key gives the English text", () => {
    const loose = JSON.parse(JSON.stringify({ "signin.title": "Connexion" }))
    const french: Language = { locale: "fr", messages: loose }
    expect(text(french, "signin.title")).toBe("Connexion")
    expect(text(french, "signout.title")).toBe("Sign Out")
  })
})

describe("Accept-Language (RFC 9110 §12.5.4)", () => {
  it.each([
    ["de", ["de"]],
    ["de-AT, en;q=0.8, fr;q=0", ["de-AT", "en"]],
    ["en;q=0.5, de;q=0.9, fr", ["fr", "de", "en"]],
    ["fr;q=0.7, de;q=0.7", ["fr", "de"]],
    ["*, de;q=0.1", ["de"]],
    ["de;q=2, fr;q=abc, it;q=0.001, es;q=1.0", ["es", "it"]],
    ["  DE-at ; q=0.9 ,", ["DE-at"]],
    ["<script>, de", ["de"]],
    ["", []],
  ])("%j → %j", (header, ranges) => {
    expect(acceptedRanges(header)).toEqual(ranges)
  })

  it("reads a bounded number of ranges", () => {
    const header = [...Array.from({ length: 100 }, (_, i) => `x-a${i}`), "de"].join(",")
    expect(acceptedRanges(header)).toHaveLength(24)
    expect(chosen(header)).toBe("en")
  })

  it("a range falls back to its language: de-AT → de, de-CH-x-foo → de, but never the other way", () => {
    const { byTag } = resolveLanguages(undefined)
    expect(lookup(byTag, "de-AT")?.locale).toBe("de")
    expect(lookup(byTag, "de-CH-x-foo")?.locale).toBe("de")
    expect(lookup(byTag, "DE")?.locale).toBe("de")
    expect(lookup(byTag, "fr-FR")).toBeUndefined()
    const withRegion = resolveLanguages({ messages: { "pt-BR": en } }).byTag
    expect(lookup(withRegion, "pt-br")?.locale).toBe("pt-BR")
    expect(lookup(withRegion, "pt")).toBeUndefined()
  })

  it.each([
    [undefined, "en"],
    ["de", "de"],
    ["de-AT", "de"],
    ["fr-FR, de;q=0.5", "de"],
    ["en-US, de;q=0.9", "en"],
    ["de;q=0.4, en;q=0.6", "en"],
    ["fr, es", "en"],
    ["de;q=0", "en"],
  ])("the request's Accept-Language %j gets %s", (header, locale) => {
    const { language, negotiated } = chooseLanguage(resolveLanguages(undefined), headers(header))
    expect(language.locale).toBe(locale)
    expect(negotiated).toBe(true)
  })

  it("pages.locale wins over Accept-Language, with its region fallback, and is not negotiated", () => {
    const languages = resolveLanguages({ locale: "de-AT" })
    const { language, negotiated } = chooseLanguage(languages, headers("en"))
    expect(language.locale).toBe("de")
    expect(negotiated).toBe(false)
  })

  it("the app's languages join the built-in ones, and replace them by tag", () => {
    const fr: Messages = { ...en, "signin.title": "Connexion" }
    const pages = { messages: { fr, en: { ...en, "signin.title": "Log in" } } }
    expect(chosen("fr-CA, de", pages)).toBe("fr")
    const fallback = chooseLanguage(resolveLanguages(pages), headers("ja")).language
    expect(text(fallback, "signin.title")).toBe("Log in")
  })

  it("a tag that is no language tag, or a locale no catalogue has, is refused at start-up", () => {
    expect(() => resolveLanguages({ messages: { "not a tag!": en } })).toThrow(TypeError)
    expect(() => resolveLanguages({ locale: "fr" })).toThrow(/pages\.locale: "fr" names no language of this config \(en, de\)/)
  })
})

describe("Auth() draws its pages in the chosen language", () => {
  const config = (pages?: AuthConfig["pages"]): AuthConfig => ({
    secret: SECRET,
    trustHost: true,
    basePath: "/auth",
    providers: [Credentials({ credentials: { password: { label: "Password", type: "password" } }, authorize: () => null })],
    ...(pages ? { pages } : {}),
  })
  const get = (path: string, auth: AuthConfig, acceptLanguage?: string) =>
    Auth(new Request(`${ORIGIN}${path}`, { headers: headers(acceptLanguage) }), auth)

  it("German from Accept-Language: lang, texts and Vary", async () => {
    const response = await get("/auth/signin", config(), "de-AT,de;q=0.9,en;q=0.5")
    const body = await response.text()
    expect(body).toContain('<html lang="de">')
    expect(body).toContain("<title>Anmelden</title>")
    expect(body).toContain(">Mit Credentials anmelden</button>")
    expect(response.headers.get("vary")).toBe("Accept-Language")
  })

  it("English for an English or absent Accept-Language: the same page either way", async () => {
    const auth = config()
    const strip = (html: string) => html.replace(/nonce="[^"]+"|value="[^"]+"/g, "")
    const absent = strip(await (await get("/auth/error?error=Verification", auth)).text())
    const english = strip(await (await get("/auth/error?error=Verification", auth, "en-GB,en;q=0.9")).text())
    expect(absent).toBe(english)
    expect(absent).toContain('<html lang="en">')
    expect(absent).toContain("<h1>Unable to sign in</h1>")
  })

  it("pages.locale: every page in that language, whatever the request asks, and no Vary", async () => {
    const response = await get("/auth/error?error=AccessDenied", config({ locale: "de" }), "en")
    expect(response.status).toBe(403)
    expect(await response.text()).toContain("<h1>Zugriff verweigert</h1>")
    expect(response.headers.get("vary")).toBeNull()
  })

  it("an app's override of one string of a built-in language", async () => {
    const response = await get("/auth/signout", config({ messages: { de: { ...de, "signout.question": "Wirklich gehen?" } } }), "de")
    const body = await response.text()
    expect(body).toContain("<p>Wirklich gehen?</p>")
    expect(body).toContain("<h1>Abmelden</h1>")
  })

  it("the 429 JSON of a page-less route speaks the request's language", async () => {
    const auth: AuthConfig = { ...config(), rateLimit: { enabled: true, rules: { client: { max: 1, window: 60 } } } }
    const send = () => Auth(new Request(`${ORIGIN}/auth/providers`, { headers: headers("de") }), auth, { clientIp: "203.0.113.9" })
    await send()
    const refused = await send()
    expect(refused.status).toBe(429)
    expect(((await refused.json()) as { message: string }).message).toBe("Zu viele Versuche. Bitte versuchen Sie es in 1 Minute erneut.")
  })

  it("the configuration error page too: a broken config, and a host that is not trusted", async () => {
    const { secret: _, ...noSecret } = config()
    const broken = await get("/auth/signin", noSecret, "de")
    expect(broken.status).toBe(500)
    expect(await broken.text()).toContain("<h1>Serverfehler</h1>")
    const untrusted = await get("/auth/error", { ...config(), trustHost: false }, "de-CH")
    expect(untrusted.status).toBe(500)
    const body = await untrusted.text()
    expect(body).toContain('<html lang="de">')
    expect(body).toContain("<p>Es gibt ein Problem mit der Serverkonfiguration.</p>")
  })
})
