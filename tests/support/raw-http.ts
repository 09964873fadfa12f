/**
 * Raw HTTP for attack tests: a listening app on a loopback port, and a client that sends whatever
 * headers the test names (a forged `Host`, `X-Forwarded-*`, malformed cookies), which `fetch` refuses
 * or rewrites. Every request is bounded in time.
 */
import { once } from "node:events"
import { createServer, request, type RequestListener, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** The `Set-Cookie` lines (none: empty). */
  setCookies: string[]
  location: string | undefined
  body: string
}

export interface RawRequest {
  method?: string
  headers?: Record<string, string>
  /** A urlencoded form body (sets Content-Type). */
  form?: Record<string, string>
  body?: string
}

export interface Listening {
  /** `http://127.0.0.1:<port>` */
  base: string
  send(path: string, options?: RawRequest): Promise<RawResponse>
  close(): Promise<void>
}

/** Serves `app` on a free loopback port. */
export async function listenRaw(app: RequestListener): Promise<Listening> {
  const server: Server = createServer(app)
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    base,
    send: (path, options) => rawRequest(base, path, options),
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, "close")
    },
  }
}

/** Sends one request to `base` + `path` with exactly the given headers; rejects after 5 s. */
export function rawRequest(base: string, path: string, options: RawRequest = {}): Promise<RawResponse> {
  const headers = { ...(options.headers ?? {}) }
  let body = options.body
  if (options.form) {
    headers["content-type"] = "application/x-www-form-urlencoded"
    body = new URLSearchParams(options.form).toString()
  }
  const method = options.method ?? (body === undefined ? "GET" : "POST")
  const url = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, headers, timeout: 5_000 }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => {
        const location = res.headers.location
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          setCookies: res.headers["set-cookie"] ?? [],
          location: typeof location === "string" ? location : undefined,
          body: text,
        })
      })
    })
    req.on("timeout", () => req.destroy(new Error(`no answer to ${method} ${path} within 5 s`)))
    req.on("error", reject)
    req.end(body)
  })
}

/** Runs `fn` with `vars` set in `process.env` (undefined deletes), restoring the previous values after. */
export function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
  apply(vars)
  try {
    return fn()
  } finally {
    apply(saved)
  }
}
