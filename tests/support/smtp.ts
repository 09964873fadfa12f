/**
 * A real SMTP server for tests: the testing kit's mailbox (smtp-server on a free loopback
 * port, no TLS, no AUTH, every message parsed by mailparser's `simpleParser` and kept in `messages`).
 *
 * Fault injection: `refusingSmtp()` answers every RCPT TO with 550, `silentServer()` accepts TCP and
 * never says a word (a stalled mail server), `closedPort()` is a port nothing listens on.
 */
import { once } from "node:events"
import { createServer } from "node:net"
import type { AddressInfo, Server, Socket } from "node:net"
import { SMTPServer } from "smtp-server"
import type { SMTPServerOptions } from "smtp-server"
import { createTestMailbox, type TestMail } from "../../src/testing/mailbox.js"

/** One received message, flattened for assertions (the testing kit's mailbox message). */
export type ParsedMessage = TestMail

export interface SmtpCapture {
  port: number
  /** `smtp://127.0.0.1:<port>` */
  url: string
  messages: ParsedMessage[]
  /** Resolves with the `count`-th message once it has arrived; rejects after `ms`. */
  waitForMessage(count?: number, ms?: number): Promise<ParsedMessage>
  stop(): Promise<void>
}

export interface RefusingSmtp {
  port: number
  url: string
  /** Addresses the server was asked to deliver to (and refused). */
  attempts: string[]
  stop(): Promise<void>
}

export interface SilentServer {
  port: number
  stop(): Promise<void>
}

const BASE_OPTIONS: SMTPServerOptions = {
  secure: false,
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  closeTimeout: 500,
}

/** Starts a capturing SMTP server on 127.0.0.1: the testing kit's mailbox (`createTestMailbox`). */
export async function startSmtp(): Promise<SmtpCapture> {
  const mailbox = await createTestMailbox()
  return { port: mailbox.port, url: mailbox.url, messages: mailbox.messages, waitForMessage: mailbox.waitForMessage, stop: mailbox.close }
}

/** Starts an SMTP server that refuses every recipient with `550 5.1.1 No such user`. */
export async function refusingSmtp(): Promise<RefusingSmtp> {
  const attempts: string[] = []
  const server = new SMTPServer({
    ...BASE_OPTIONS,
    onRcptTo(address, _session, callback) {
      attempts.push(address.address)
      callback(Object.assign(new Error("5.1.1 No such user"), { responseCode: 550 }))
    },
    onData(stream, _session, callback) {
      stream.resume()
      stream.on("end", () => callback(new Error("unexpected DATA")))
    },
  })
  const port = await listen(server)
  return { port, url: `smtp://127.0.0.1:${port}`, attempts, stop: () => close(server) }
}

/** A TCP server that accepts connections and never answers: no SMTP greeting ever comes. */
export async function silentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    socket.on("error", () => undefined)
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const { port } = server.address() as AddressInfo
  return {
    port,
    async stop() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A loopback port nothing listens on (listen(0), then close). */
export async function closedPort(): Promise<number> {
  const server = createServer()
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function listen(server: SMTPServer): Promise<number> {
  server.on("error", () => undefined) // client hang-ups are not test failures
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  return (server.server.address() as AddressInfo).port
}

function close(server: SMTPServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()))
}
