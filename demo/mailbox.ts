/**
 * The demo's mailbox: an SMTP server on 127.0.0.1 (smtp-server, no TLS, no AUTH) that accepts every message,
 * parses it with mailparser, keeps the newest ones in memory and prints each one, so email sign-in works
 * offline. The demo shows them on `/dev/mailbox`. Nothing is delivered anywhere. Not for production.
 */
import type { AddressInfo } from "node:net"
import { simpleParser } from "mailparser"
import type { AddressObject } from "mailparser"
import { SMTPServer } from "smtp-server"

/** One captured message. */
export interface MailboxMessage {
  receivedAt: Date
  /** Addresses of the SMTP envelope (`RCPT TO`): where the message was sent. */
  to: string[]
  from: string
  subject: string
  text: string
  /** The first http(s) URL of the text part (the magic link), else of the HTML's links. */
  link: string | undefined
  /** The one-time sign-in code the text gives (6 digits after the word "code"), if any. */
  code: string | undefined
}

export interface MailboxOptions {
  /** Default 0: any free port. */
  port?: number
  /** How many messages are kept (the oldest go first). Default 50. */
  keep?: number
  /** Where each received message is printed. Default: console.log. */
  log?: (line: string) => void
}

export interface Mailbox {
  port: number
  /** `smtp://127.0.0.1:<port>` */
  url: string
  /** Newest first. */
  messages(): MailboxMessage[]
  stop(): Promise<void>
}

const MAX_MESSAGE_BYTES = 1024 * 1024

function addresses(field: AddressObject | AddressObject[] | undefined): string {
  return [field ?? []]
    .flat()
    .flatMap((group) => group.value)
    .map((a) => (a.name ? `${a.name} <${a.address ?? ""}>` : (a.address ?? "")))
    .join(", ")
}

function firstLink(text: string, html: string): string | undefined {
  const fromText = /https?:\/\/[^\s<>"]+/i.exec(text)?.[0]
  if (fromText) return fromText
  const href = /href\s*=\s*"(https?:\/\/[^"]*)"/i.exec(html)?.[1]
  return href?.replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&")
}

function signInCode(text: string): string | undefined {
  return /\bcode\b[^\n]*?\b(\d{6})\b/i.exec(text)?.[1]
}

/** Starts the mailbox on 127.0.0.1. */
export async function startMailbox(options: MailboxOptions = {}): Promise<Mailbox> {
  const keep = options.keep ?? 50
  const log = options.log ?? console.log
  const received: MailboxMessage[] = []

  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    closeTimeout: 500,
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          if (stream.sizeExceeded) {
            callback(Object.assign(new Error("Message too big for the demo mailbox"), { responseCode: 552 }))
            return
          }
          const text = mail.text ?? ""
          const message: MailboxMessage = {
            receivedAt: new Date(),
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            from: addresses(mail.from),
            subject: mail.subject ?? "",
            text,
            link: firstLink(text, typeof mail.html === "string" ? mail.html : ""),
            code: signInCode(text),
          }
          received.unshift(message)
          received.splice(keep)
          log(`[mailbox] to ${message.to.join(", ")}: ${JSON.stringify(message.subject)}`)
          if (message.link) log(`[mailbox]   ${message.link}`)
          if (message.code) log(`[mailbox]   code ${message.code}`)
          callback()
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      )
    },
  })
  server.on("error", () => undefined) // a client hanging up is not the demo's problem

  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.server.off("error", reject)
      resolve()
    })
  })
  const { port } = server.server.address() as AddressInfo

  let stopped: Promise<void> | undefined
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages: () => received.map((m) => ({ ...m, to: [...m.to] })),
    stop() {
      stopped ??= new Promise<void>((resolve) => server.close(() => resolve()))
      return stopped
    },
  }
}
