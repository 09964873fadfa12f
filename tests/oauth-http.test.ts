/**
 * Requests to a provider as the sign-in makes them (oauth4webapi's request functions with
 * src/runtime/oauth/server.ts' `httpOptions`: the global `fetch` with a bounded body,
 * the provider's timeout as the deadline) against real local servers: redirects are not followed,
 * compressed answers are decoded, and every way a provider can misbehave (closed port, no answer, an
 * answer that stops halfway, a body too large, a certificate nobody vouches for) ends in a rejection
 * instead of a hang. The sign-in errors these become are in tests/oauth.test.ts.
 */
import { execFile, execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { gzipSync } from "node:zlib"
import * as o from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { OAuthConfig } from "../src/providers/oauth-types.js"
import { MAX_BODY_BYTES, ProviderHttpError } from "../src/runtime/oauth/fetch.js"
import { httpOptions } from "../src/runtime/oauth/server.js"
import { closedPort } from "./support/oidc-provider.js"
import { repoRoot } from "./support/packed.js"

const run = promisify(execFile)

const connections = { count: 0 }
const hits: Record<string, number> = {}

function route(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? "/", "http://x").pathname
  hits[path] = (hits[path] ?? 0) + 1
  const chunks: Buffer[] = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    switch (path) {
      case "/echo":
        res.setHeader("content-type", "application/json")
        res.setHeader("set-cookie", ["a=1", "b=2"])
        return res.end(JSON.stringify({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() }))
      case "/hang":
        return // never answers
      case "/stall-body":
        res.writeHead(200, { "content-type": "application/json", "content-length": "100" })
        return res.write('{"access_token":') // and nothing more
      case "/cut":
        res.writeHead(200, { "content-type": "application/json", "content-length": "100" })
        res.write('{"access_token":')
        return setTimeout(() => res.socket?.destroy(), 20)
      case "/redirect":
        res.writeHead(302, { location: "/target" })
        return res.end()
      case "/declared-large":
        res.writeHead(200, { "content-length": String(MAX_BODY_BYTES + 1) })
        return res.write("x") // the header alone is enough to refuse
      case "/chunked-large":
        res.writeHead(200, { "content-type": "application/json" })
        for (let i = 0; i < 5; i++) res.write(Buffer.alloc(MAX_BODY_BYTES / 4, 0x20))
        return res.end("{}")
      case "/gzip-large":
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
        return res.end(gzipSync(Buffer.alloc(MAX_BODY_BYTES + 1, 0x20)))
      case "/gzip":
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
        return res.end(gzipSync(JSON.stringify({ token_type: "Bearer" })))
      case "/no-content":
        res.writeHead(204)
        return res.end()
      default:
        res.writeHead(404)
        res.end()
    }
  })
}

let server: Server
let base: string

function listen(s: Server): Promise<number> {
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as AddressInfo).port)))
}

beforeAll(async () => {
  server = createServer(route)
  server.keepAliveTimeout = 5_000
  server.on("connection", () => connections.count++)
  base = `http://127.0.0.1:${await listen(server)}`
})
afterAll(() => {
  server.closeAllConnections()
  server.close()
})

/** A provider with a short timeout, on a loopback `http:` issuer (allowed). */
const provider: OAuthConfig = { id: "local", name: "Local", type: "oauth", clientId: "c", timeout: 200 }
const client: o.Client = { client_id: "c" }
const serverAt = (url: string): o.AuthorizationServer => ({ issuer: base, userinfo_endpoint: url, token_endpoint: url })

/** A GET as oauth4webapi makes it (its userinfo request) to `path`, with the options every provider request gets. */
const get = (path: string, extra: { signal?: AbortSignal; headers?: Record<string, string> } = {}) =>
  o.userInfoRequest(serverAt(`${base}${path}`), client, "at-1", { ...httpOptions(provider, new URL(base)), ...extra })

/** The body of a GET to `path`, read whole. */
const read = (path: string) => get(path).then((res) => res.text())

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string; cause?: { code?: string } }> {
  try {
    await promise
  } catch (err) {
    return err as Error & { code?: string; cause?: { code?: string } }
  }
  throw new Error("expected a rejection")
}

describe("a provider request answers", () => {
  it("a form POST with its headers and body, and the answer's status, headers and JSON", async () => {
    const body = new URLSearchParams({ code: "c ö" })
    const res = await o.genericTokenEndpointRequest(serverAt(`${base}/echo`), client, o.None(), "authorization_code", body, {
      ...httpOptions(provider, new URL(base)),
      headers: { "x-one": "1" },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("application/json")
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"])
    const echo = (await res.json()) as { method: string; headers: Record<string, string>; body: string }
    expect(echo.method).toBe("POST")
    expect(Object.fromEntries(new URLSearchParams(echo.body))).toEqual({ code: "c ö", grant_type: "authorization_code", client_id: "c" })
    expect(echo.headers).toMatchObject({
      accept: "application/json",
      "content-type": "application/x-www-form-urlencoded;charset=UTF-8",
      "x-one": "1",
      "content-length": String(Buffer.byteLength(echo.body)),
    })
  })

  it("keeps the connection alive between requests", async () => {
    await get("/echo")
    const before = connections.count
    await (await get("/echo")).text()
    await (await get("/echo")).text()
    expect(connections.count).toBe(before)
  })

  it("a redirect as it is, without following it", async () => {
    const res = await get("/redirect")
    expect(res.status).toBe(302)
    expect(res.headers.get("location")).toBe("/target")
    expect(hits["/target"]).toBeUndefined()
  })

  it("a gzip body decoded, and a 204 with no body", async () => {
    const res = await get("/gzip")
    expect(res.headers.get("content-encoding")).toBeNull()
    expect(await res.json()).toEqual({ token_type: "Bearer" })
    const empty = await get("/no-content")
    expect(empty.status).toBe(204)
    expect(empty.body).toBeNull()
  })
})

describe("a provider request rejects", () => {
  it("a closed port with the connection error", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/token`
    const err = await rejection(o.userInfoRequest(serverAt(url), client, "at-1", httpOptions(provider, new URL(url))))
    expect(err.cause?.code).toBe("ECONNREFUSED")
  })

  it("a server that never answers, at the deadline", async () => {
    const started = Date.now()
    const err = await rejection(get("/hang"))
    expect(err.name).toBe("TimeoutError")
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it("an answer whose body stops coming, at the same deadline", async () => {
    const started = Date.now()
    const err = await rejection(read("/stall-body"))
    expect(err.name).toBe("TimeoutError")
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it("an answer cut off halfway", async () => {
    const err = await rejection(read("/cut"))
    expect(err.name).not.toBe("TimeoutError")
    expect(err).toBeInstanceOf(TypeError)
  })

  it("a body larger than MAX_BODY_BYTES: declared, streamed, or once decompressed", async () => {
    for (const path of ["/declared-large", "/chunked-large", "/gzip-large"]) {
      const err = await rejection(read(path))
      expect(err).toBeInstanceOf(ProviderHttpError)
      expect(err.code).toBe("ETOOLARGE")
    }
  })

  it("an aborted signal", async () => {
    const controller = new AbortController()
    const pending = get("/hang", { signal: controller.signal })
    controller.abort(new Error("stop"))
    expect((await rejection(pending)).message).toBe("stop")
  })

  it("a URL that is not http(s), before anything is sent", async () => {
    const err = await rejection(o.userInfoRequest(serverAt("ftp://127.0.0.1/x"), client, "at-1", httpOptions(provider, undefined)))
    expect(err).toBeInstanceOf(o.OperationProcessingError)
    expect(err.code).toBe(o.HTTP_REQUEST_FORBIDDEN)
  })

  it("a header value with a line break, before anything is sent", async () => {
    const before = hits["/echo"] ?? 0
    const err = await rejection(get("/echo", { headers: { "x-a": "1\r\nx-injected: 2" } }))
    expect(err).toBeInstanceOf(TypeError)
    expect(hits["/echo"] ?? 0).toBe(before)
  })

  it("an https server whose certificate nobody vouches for (TLS verification stays on), and the same one trusted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "authchart-tls-"))
    try {
      const key = join(dir, "key.pem")
      const cert = join(dir, "cert.pem")
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:prime256v1",
          "-nodes",
          "-keyout",
          key,
          "-out",
          cert,
          "-days",
          "1",
          "-subj",
          "/CN=127.0.0.1",
          "-addext",
          "subjectAltName=IP:127.0.0.1",
        ],
        {
          stdio: "ignore",
        },
      )
      const tls = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, route)
      const port = await listen(tls)
      const echoed = hits["/echo"] ?? 0
      try {
        const url = `https://127.0.0.1:${port}/echo`
        const err = await rejection(o.userInfoRequest(serverAt(url), client, "at-1", httpOptions(provider, new URL(url))))
        expect(err.cause?.code).toBe("DEPTH_ZERO_SELF_SIGNED_CERT")
        expect(hits["/echo"] ?? 0).toBe(echoed) // the request never reached the handler
        // trusted (NODE_EXTRA_CA_CERTS, read at start, so in a process of its own), the same server answers
        const script = `import("${join(repoRoot, "src/runtime/oauth/fetch.ts")}").then((m) => m.providerFetch("${url}", { method: "GET", headers: {} })).then((a) => console.log(a.status))`
        const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
          cwd: repoRoot,
          env: { ...process.env, NODE_EXTRA_CA_CERTS: cert },
        })
        expect(stdout.trim()).toBe("200")
      } finally {
        tls.closeAllConnections()
        tls.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
