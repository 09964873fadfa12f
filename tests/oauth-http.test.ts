/**
 * The provider HTTP client (src/runtime/effects/oauth-http.ts) against real local servers: answers are
 * read whole, redirects are not followed, and every way a provider can misbehave (closed port, no
 * answer, an answer that stops halfway, a body too large, a certificate nobody vouches for) ends in a
 * rejection instead of a hang. The sign-in errors these become are in tests/oauth.test.ts.
 */
import { execFile, execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import { type AddressInfo, type Server as NetServer, createServer as createNetServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { gzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_BODY_BYTES, ProviderHttpError, providerFetch, providerRequest } from "../src/runtime/effects/oauth-http.js"
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

function listen(s: Server | NetServer): Promise<number> {
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

const quick = providerFetch(200)
const get = (path: string, init: Partial<Parameters<typeof quick>[1]> = {}) =>
  quick(`${base}${path}`, { method: "GET", headers: {}, ...init })

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise
  } catch (err) {
    return err as Error & { code?: string }
  }
  throw new Error("expected a rejection")
}

describe("the provider HTTP client answers", () => {
  it("a form POST with its headers and body, and the answer's status, headers and JSON", async () => {
    const body = new URLSearchParams({ grant_type: "authorization_code", code: "c ö" })
    const res = await quick(`${base}/echo`, { method: "POST", headers: { accept: "application/json", "x-one": "1" }, body })
    expect(res).toBeInstanceOf(Response)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("application/json")
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"])
    const echo = (await res.json()) as { method: string; headers: Record<string, string>; body: string }
    expect(echo.method).toBe("POST")
    expect(echo.body).toBe(body.toString())
    expect(echo.headers).toMatchObject({ accept: "application/json", "x-one": "1", "content-length": String(body.toString().length) })
  })

  it("a body that reads like fetch's: once, or cloned first, or as a stream", async () => {
    const once = await get("/gzip")
    expect(once.bodyUsed).toBe(false)
    const copy = once.clone()
    expect(await once.text()).toBe('{"token_type":"Bearer"}')
    expect(once.bodyUsed).toBe(true)
    await expect(once.json()).rejects.toThrow(TypeError)
    expect(() => once.clone()).toThrow(TypeError)
    expect(new TextDecoder().decode(await copy.arrayBuffer())).toBe('{"token_type":"Bearer"}')

    const streamed = await get("/gzip")
    const reader = streamed.body?.getReader()
    const chunk = await reader?.read()
    expect(new TextDecoder().decode(chunk?.value)).toBe('{"token_type":"Bearer"}')
    expect(streamed.bodyUsed).toBe(true)
    await expect(streamed.text()).rejects.toThrow(TypeError)
  })

  it("keeps the connection alive between requests", async () => {
    await get("/echo")
    const before = connections.count
    await get("/echo")
    await get("/echo")
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

describe("the provider HTTP client rejects", () => {
  it("a closed port with the connection error", async () => {
    const err = await rejection(providerFetch(500)(`http://127.0.0.1:${await closedPort()}/token`, { method: "POST", headers: {} }))
    expect(err.code).toBe("ECONNREFUSED")
  })

  it("a server that never answers, at the deadline", async () => {
    const err = await rejection(get("/hang"))
    expect(err).toBeInstanceOf(ProviderHttpError)
    expect(err.code).toBe("ETIMEDOUT")
  })

  it("an answer whose body stops coming, at the same deadline", async () => {
    const err = await rejection(get("/stall-body"))
    expect(err).toBeInstanceOf(ProviderHttpError)
    expect(err.code).toBe("ETIMEDOUT")
  })

  it("an answer cut off halfway", async () => {
    const err = await rejection(get("/cut"))
    expect(err).not.toBeInstanceOf(ProviderHttpError)
    expect(err.message).toMatch(/aborted|closed before the answer was complete/)
  })

  it("a body larger than MAX_BODY_BYTES, declared or streamed", async () => {
    for (const path of ["/declared-large", "/chunked-large"]) {
      const err = await rejection(get(path))
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

  it("a URL that is not http(s)", async () => {
    expect(await rejection(quick("ftp://127.0.0.1/x", { method: "GET", headers: {} }))).toBeInstanceOf(TypeError)
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
        const err = await rejection(providerFetch(2_000)(`https://127.0.0.1:${port}/echo`, { method: "GET", headers: {} }))
        expect(err.code).toBe("DEPTH_ZERO_SELF_SIGNED_CERT")
        expect(hits["/echo"] ?? 0).toBe(echoed) // the request never reached the handler
        // trusted (NODE_EXTRA_CA_CERTS, read at start, so in a process of its own), the same server answers
        const script = `import("${join(repoRoot, "src/runtime/effects/oauth-http.ts")}").then((m) => m.providerRequest("https://127.0.0.1:${port}/echo", { method: "GET", headers: {} }, 5000)).then((a) => console.log(a.status))`
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

/** Answers written byte for byte, by request path; `end` closes the connection after the answer. */
const scripted: Record<string, { answer: string; end?: boolean }> = {
  "/chunked": {
    answer:
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\n{"a":\r\n3\r\n 1}\r\n0\r\nX-Trailer: t\r\n\r\n',
  },
  "/early-hints": { answer: "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}" },
  "/until-close": { answer: 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"b":2}', end: true },
  "/http10": { answer: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}" },
  "/trailing-bytes": { answer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}JUNK" },
  "/short-keep-alive": { answer: "HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 2\r\n\r\n{}" },
  "/keep-2": { answer: "HTTP/1.1 200 OK\r\nKeep-Alive: timeout=2\r\nContent-Length: 2\r\n\r\n{}" },
  "/kept": { answer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}" },
  "/folded-header": { answer: "HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\nContent-Length: 2\r\n\r\n{}" },
  "/name-with-space": { answer: "HTTP/1.1 200 OK\r\nX A: 1\r\nContent-Length: 2\r\n\r\n{}" },
  "/space-before-colon": { answer: "HTTP/1.1 200 OK\r\nX-A : 1\r\nContent-Length: 2\r\n\r\n{}" },
  "/control-in-value": { answer: "HTTP/1.1 200 OK\r\nX-A: 1\x01\r\nContent-Length: 2\r\n\r\n{}" },
  "/padded": { answer: "HTTP/1.1 200 OK\r\nX-Pad: \t padded\tvalue \t\r\nX-Empty:\r\nContent-Length: 2\r\n\r\n{}" },
  "/two-lengths": { answer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}" },
  "/gzip-transfer": { answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" },
  "/bad-chunk": { answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" },
  "/not-http": { answer: "SSH-2.0-OpenSSH_9.6\r\n\r\n" },
  "/huge-head": { answer: `HTTP/1.1 200 OK\r\nX-Big: ${"b".repeat(70_000)}\r\n\r\n` },
}
/** The connection that carried each path's last request, and whether the client has closed it. */
const carried: Record<string, { closed: boolean }> = {}
let wire: NetServer
let wireBase: string

beforeAll(async () => {
  wire = createNetServer((socket) => {
    const connection = { closed: false }
    socket.on("close", () => {
      connection.closed = true
    })
    let seen = ""
    socket.on("data", (chunk: Buffer) => {
      seen += chunk.toString("latin1")
      const end = seen.indexOf("\r\n\r\n")
      if (end < 0) return
      const path = seen.slice(seen.indexOf(" ") + 1, seen.indexOf(" HTTP/1.1"))
      seen = ""
      carried[path] = connection
      const script = scripted[path] ?? { answer: "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n" }
      socket.write(script.answer)
      if (script.end) socket.end()
    })
    socket.on("error", () => {})
  })
  wireBase = `http://127.0.0.1:${await listen(wire)}`
})
afterAll(() => wire.close())

const wireGet = (path: string) => providerRequest(`${wireBase}${path}`, { method: "GET", headers: {} }, 500)
/** Whether the client closed the connection that carried `path` (given a moment to arrive). */
async function closedAfter(path: string): Promise<boolean | undefined> {
  await new Promise((resolve) => setTimeout(resolve, 30))
  return carried[path]?.closed
}

describe("the provider HTTP client reads HTTP/1.1 framing (RFC 9112)", () => {
  it("a chunked answer (extensions and trailers dropped), and keeps its connection", async () => {
    expect(await wireGet("/chunked")).toMatchObject({ status: 200, text: '{"a": 1}' })
    expect(await closedAfter("/chunked")).toBe(false)
  })

  it("header values without the blanks around them, an empty one as empty", async () => {
    const answer = await wireGet("/padded")
    expect(answer.rawHeaders).toEqual(["X-Pad", "padded\tvalue", "X-Empty", "", "Content-Length", "2"])
  })

  it("skips an interim 103 answer", async () => {
    expect(await wireGet("/early-hints")).toMatchObject({ status: 200, text: "{}" })
  })

  it("an answer framed by the connection's end, which is then not reused", async () => {
    expect(await wireGet("/until-close")).toMatchObject({ status: 200, text: '{"b":2}' })
    expect(await closedAfter("/until-close")).toBe(true)
  })

  it("does not reuse a connection after HTTP/1.0, bytes after the answer, or a Keep-Alive timeout of 1 s", async () => {
    for (const path of ["/http10", "/trailing-bytes", "/short-keep-alive"]) {
      expect(await wireGet(path)).toMatchObject({ status: 200, text: "{}" })
      expect(await closedAfter(path)).toBe(true)
    }
    await wireGet("/kept")
    expect(await closedAfter("/kept")).toBe(false)
  })

  it("closes a kept connection itself a second before the server's Keep-Alive timeout", async () => {
    expect(await wireGet("/keep-2")).toMatchObject({ status: 200, text: "{}" })
    expect(await closedAfter("/keep-2")).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await closedAfter("/keep-2")).toBe(true)
  })

  it("a kept connection the server closed while it was idle is not used", async () => {
    const short = createServer(route)
    short.keepAliveTimeout = 50
    let opened = 0
    short.on("connection", () => opened++)
    const port = await listen(short)
    try {
      const echo = () => providerRequest(`http://127.0.0.1:${port}/echo`, { method: "GET", headers: {} }, 500)
      expect((await echo()).status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect((await echo()).status).toBe(200)
      expect(opened).toBe(2)
    } finally {
      short.closeAllConnections()
      short.close()
    }
  })

  it.each([
    "/folded-header",
    "/name-with-space",
    "/space-before-colon",
    "/control-in-value",
    "/two-lengths",
    "/gzip-transfer",
    "/bad-chunk",
    "/not-http",
    "/huge-head",
  ])("%s → a ProviderHttpError (EBADANSWER), no guess", async (path) => {
    const err = await rejection(wireGet(path))
    expect(err).toBeInstanceOf(ProviderHttpError)
    expect(err.code).toBe("EBADANSWER")
  })

  it("a header value with a line break is refused before anything is sent", async () => {
    const before = hits["/echo"] ?? 0
    const err = await rejection(quick(`${base}/echo`, { method: "GET", headers: { "x-a": "1\r\nx-injected: 2" } }))
    expect(err).toBeInstanceOf(TypeError)
    expect(hits["/echo"] ?? 0).toBe(before)
  })
})
