/**
 * A person with a browser, for the demo's scenario tests: follows links, reads forms off the pages and
 * submits them, one cookie jar per origin. Plus what they read on a page: forms, links, visible text.
 */
import { once } from "node:events"
import type { AddressInfo } from "node:net"
import type { Express } from "express"
import { expect } from "vitest"
import { CookieJar } from "../helpers.js"

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") return String.fromCodePoint(ref[1] === "x" ? parseInt(ref.slice(2), 16) : Number(ref.slice(1)))
    return ENTITIES[ref.toLowerCase()] ?? whole
  })
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of tag.matchAll(/([\w-]+)(?:="([^"]*)")?/g)) {
    if (m[1]) out[m[1].toLowerCase()] = decodeEntities(m[2] ?? "")
  }
  return out
}

export interface Form {
  action: string
  method: string
  fields: Record<string, string>
  inputs: Array<Record<string, string>>
  /** What a person reads on the form (its text, tags removed, spaces collapsed). */
  text: string
}

export const visibleText = (html: string): string =>
  decodeEntities(html.replace(/<[^>]*>/g, " "))
    .replace(/\s+/g, " ")
    .trim()

/** Every `<form>` of a page with its inputs (hidden values prefilled). */
export function forms(html: string): Form[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map((m) => {
    const form = attributes(m[1] ?? "")
    const inputs = [...(m[2] ?? "").matchAll(/<input\b([^>]*)>/g)].map((i) => attributes(i[1] ?? ""))
    const fields: Record<string, string> = {}
    for (const input of inputs) if (input.name) fields[input.name] = input.value ?? ""
    return { action: form.action ?? "", method: (form.method ?? "GET").toUpperCase(), fields, inputs, text: visibleText(m[2] ?? "") }
  })
}

/** The one form whose text says `label`. */
export function formSaying(html: string, label: string): Form {
  const found = forms(html).filter((f) => f.text.includes(label))
  expect(found.map((f) => f.text)).toHaveLength(1)
  return found[0] as Form
}

export const links = (html: string): string[] => [...html.matchAll(/<a\b[^>]*href="([^"]*)"/g)].map((m) => decodeEntities(m[1] ?? ""))

/** A person with a browser: one cookie jar per origin (the demo's, the IdP's), relative URLs against `origin`. */
export class Person {
  readonly jars = new Map<string, CookieJar>()
  constructor(readonly origin: string) {}

  /** The cookie jar of `origin` (default: the demo's). */
  jarOf(origin = this.origin): CookieJar {
    let jar = this.jars.get(origin)
    if (!jar) this.jars.set(origin, (jar = new CookieJar()))
    return jar
  }

  get jar(): CookieJar {
    return this.jarOf()
  }

  async visit(url: string, form?: Record<string, string>): Promise<Response> {
    const target = new URL(url, this.origin)
    const jar = this.jarOf(target.origin)
    const headers = new Headers()
    const cookie = jar.header()
    if (cookie) headers.set("cookie", cookie)
    const init: RequestInit = { headers, redirect: "manual" }
    if (form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      Object.assign(init, { method: "POST", body: new URLSearchParams(form).toString() })
    }
    const response = await fetch(target, init)
    jar.apply(response)
    return response
  }

  /** Follows redirects like a browser (a 303 after a POST becomes a GET), across origins. */
  async follow(response: Response): Promise<{ response: Response; url: string; hops: string[] }> {
    const hops: string[] = []
    let url = response.url
    while (response.status === 302 || response.status === 303) {
      url = new URL(response.headers.get("location") ?? "", url).href
      hops.push(url)
      response = await this.visit(url)
    }
    return { response, url, hops }
  }
}

/** Serves `app` on a free loopback port for `use`, then closes it. */
export async function serving<T>(app: Express, use: (origin: string) => Promise<T>): Promise<T> {
  const server = app.listen(0, "127.0.0.1")
  try {
    await once(server, "listening")
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  } finally {
    server.closeAllConnections()
    server.close()
  }
}

/** The session the protected page prints. */
export function sessionShown(html: string): { user: Record<string, unknown>; expires: string } {
  const pre = /<pre>([\s\S]*?)<\/pre>/.exec(html)?.[1] ?? ""
  expect(pre).not.toContain('"')
  return JSON.parse(decodeEntities(pre)) as { user: Record<string, unknown>; expires: string }
}
