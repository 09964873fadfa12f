/**
 * A real SMTP server for tests (HARNESS.md §4): smtp-server on a free loopback port, no TLS, no AUTH,
 * every message parsed by mailparser's `simpleParser` and kept in `messages`.
 *
 * Fault injection: `refusingSmtp()` answers every RCPT TO with 550, `silentServer()` accepts TCP and
 * never says a word (a stalled mail server), `closedPort()` is a port nothing listens on.
 */
import { once } from "node:events"
import { createServer } from "node:net"
import type { AddressInfo, Server, Socket } from "node:net"
import { simpleParser } from "mailparser"
import type { AddressObject, ParsedMail } from "mailparser"
import { SMTPServer } from "smtp-server"
import type { SMTPServerOptions } from "smtp-server"

/** One received message, flattened for assertions. */
export interface ParsedMessage {
  /** Addresses of the `To` header. */
  to: string[]
  /** Addresses of the SMTP envelope (`RCPT TO`): who the message was really delivered to. */
  envelopeTo: string[]
  /** The `From` header's mailboxes, each as `Name <address>` (or the bare address). */
  from: string
  subject: string
  text: string
  html: string
  /** Every `href` of the HTML (entities decoded), then every http(s) URL of the text part. */
  links: string[]
}

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

/** Starts a capturing SMTP server on 127.0.0.1. */
export async function startSmtp(): Promise<SmtpCapture> {
  const messages: ParsedMessage[] = []
  const waiters = new Set<() => void>()

  const server = new SMTPServer({
    ...BASE_OPTIONS,
    onData(stream, session, callback) {
      const envelopeTo = session.envelope.rcptTo.map((rcpt) => rcpt.address)
      simpleParser(stream).then(
        (mail) => {
          messages.push(flatten(mail, envelopeTo))
          for (const wake of waiters) wake()
          callback()
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      )
    },
  })
  const port = await listen(server)

  function waitForMessage(count = 1, ms = 5_000): Promise<ParsedMessage> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const message = messages[count - 1]
        if (!message) return false
        waiters.delete(wake)
        clearTimeout(timer)
        resolve(message)
        return true
      }
      const wake = (): void => void check()
      const timer = setTimeout(() => {
        waiters.delete(wake)
        reject(new Error(`SMTP test server: ${messages.length} message(s) after ${ms} ms, wanted ${count}`))
      }, ms)
      waiters.add(wake)
      check()
    })
  }

  return { port, url: `smtp://127.0.0.1:${port}`, messages, waitForMessage, stop: () => close(server) }
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

function flatten(mail: ParsedMail, envelopeTo: string[]): ParsedMessage {
  const html = typeof mail.html === "string" ? mail.html : ""
  const text = mail.text ?? ""
  const hrefs = [...html.matchAll(/href\s*=\s*"([^"]*)"/gi)].map((match) => decodeEntities(match[1] ?? ""))
  const urls = [...text.matchAll(/https?:\/\/[^\s<>"]+/gi)].map((match) => match[0])
  return {
    to: addressesOf(mail.to),
    envelopeTo,
    from: (mail.from?.value ?? []).map((a) => (a.name ? `${a.name} <${a.address ?? ""}>` : (a.address ?? ""))).join(", "),
    subject: mail.subject ?? "",
    text,
    html,
    links: [...hrefs, ...urls],
  }
}

function addressesOf(field: AddressObject | AddressObject[] | undefined): string[] {
  if (!field) return []
  return [field]
    .flat()
    .flatMap((group) => group.value)
    .map((entry) => entry.address ?? "")
    .filter(Boolean)
}

function decodeEntities(value: string): string {
  return value
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&")
}
