/**
 * A round-robin load balancer on loopback, for a real browser in front of several app instances: one
 * origin (`http://localhost:<port>`, a secure context for WebAuthn), each request forwarded to the next
 * instance in turn with its `Host` header unchanged, so every instance computes the same origin.
 * `served` records which instance answered each request.
 */
import { once } from "node:events"
import { type IncomingMessage, type ServerResponse, createServer, request } from "node:http"
import type { AddressInfo } from "node:net"

export interface RoundRobin {
  /** `http://localhost:<port>` */
  base: string
  /** The instance index that answered each request, in order. */
  served: number[]
  stop(): Promise<void>
}

/** Starts the balancer in front of `bases` (`http://127.0.0.1:<port>` each). */
export async function startRoundRobin(bases: readonly string[]): Promise<RoundRobin> {
  const served: number[] = []
  let turn = 0
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const index = turn++ % bases.length
    const target = new URL(req.url ?? "/", bases[index])
    const upstream = request(target, { method: req.method, headers: req.headers, timeout: 10_000 }, (answer) => {
      served.push(index)
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on("timeout", () => upstream.destroy(new Error("upstream timed out")))
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    req.pipe(upstream)
  }
  const server = createServer(forward)
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  return {
    base: `http://localhost:${(server.address() as AddressInfo).port}`,
    served,
    async stop() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
