/**
 * `createTestMailbox()`: an SMTP server on a loopback port that keeps every message it receives, so a
 * test can read the sign-in link an app sends. Point the app's email provider at `mailbox.url`.
 * Needs the optional packages `smtp-server` and `mailparser` (`npm install -D smtp-server mailparser`).
 */
import type { AddressInfo } from "node:net"

/** One received message. */
export interface TestMail {
  /** Addresses of the `To` header. */
  to: string[]
  /** Addresses the message was delivered to (SMTP `RCPT TO`). */
  envelopeTo: string[]
  /** The `From` header, as `Name <address>` (or the bare address). */
  from: string
  subject: string
  text: string
  html: string
  /** Every `href` of the HTML (entities decoded), then every http(s) URL of the text. */
  links: string[]
}

/** Which message {@link TestMailbox.waitForMail} waits for. */
export interface MailWait {
  /** Only messages received after the first `since` count. */
  since?: number
  timeoutMs?: number
}

/** The running capture. */
export interface TestMailbox {
  /** `smtp://127.0.0.1:<port>`: the `server` of the app's email provider in tests. */
  url: string
  port: number
  /** Every message received so far, oldest first. */
  readonly messages: TestMail[]
  /** The `count`-th message received (1-based), waiting up to `timeoutMs` (default 5 s) for it. */
  waitForMessage(count?: number, timeoutMs?: number): Promise<TestMail>
  /**
   * The newest message delivered to `address`, waiting for one when none came yet; with `since`, the
   * first one to `address` among the messages after the first `since` (`messages.length` taken before
   * the app sends). Rejects after `timeoutMs` (default 5 s).
   */
  waitForMail(address: string, options?: MailWait): Promise<TestMail>
  /** The first link of that message: the sign-in link of an email sign-in. */
  linkFor(address: string, options?: MailWait): Promise<string>
  /** Stops the server. */
  close(): Promise<void>
}

interface ParsedAddress {
  value: { name?: string; address?: string }[]
}
interface ParsedMail {
  to?: ParsedAddress | ParsedAddress[]
  from?: ParsedAddress
  subject?: string
  text?: string
  html?: string | false
}
interface SmtpServer {
  server: { address(): AddressInfo | string | null; once(event: "error", listener: (error: Error) => void): void }
  on(event: "error", listener: (error: Error) => void): void
  listen(port: number, host: string, callback: () => void): void
  close(callback: () => void): void
}
interface SmtpSession {
  envelope: { rcptTo: { address: string }[] }
}
interface SmtpServerModule {
  SMTPServer: new (options: {
    secure: boolean
    authOptional: boolean
    disabledCommands: string[]
    logger: boolean
    closeTimeout: number
    onData(stream: NodeJS.ReadableStream, session: SmtpSession, callback: (error?: Error | null) => void): void
  }) => SmtpServer
}
interface MailParserModule {
  simpleParser(source: NodeJS.ReadableStream): Promise<ParsedMail>
}

async function loadPeers(): Promise<[SmtpServerModule, MailParserModule]> {
  try {
    return [(await import("smtp-server")) as unknown as SmtpServerModule, (await import("mailparser")) as unknown as MailParserModule]
  } catch (error) {
    throw new Error(
      'createTestMailbox() receives mail with the packages "smtp-server" and "mailparser": npm install -D smtp-server mailparser',
      { cause: error },
    )
  }
}

/**
 * Starts an SMTP capture on 127.0.0.1 (no TLS, no AUTH), every message parsed by mailparser.
 *
 * @example
 * ```ts
 * import { createTestMailbox } from "authchart/testing"
 * const mailbox = await createTestMailbox()
 * const config = { ...authConfig, providers: [Nodemailer({ server: mailbox.url, from: "app@example.test" })] }
 * // ...after the app sent a sign-in email:
 * const link = await mailbox.linkFor("ada@example.test")
 * await mailbox.close()
 * ```
 */
export async function createTestMailbox(): Promise<TestMailbox> {
  const [{ SMTPServer }, { simpleParser }] = await loadPeers()
  const messages: TestMail[] = []
  const waiters = new Set<() => void>()
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    closeTimeout: 500,
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
  server.on("error", () => undefined) // a client hanging up is not the test's failure
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.server.address() as AddressInfo

  /** Resolves with what `pick` finds, checked now and on every new message, or rejects after `ms`. */
  function waitFor(pick: () => TestMail | undefined, ms: number, what: string): Promise<TestMail> {
    return new Promise((resolve, reject) => {
      const wake = (): void => {
        const found = pick()
        if (!found) return
        waiters.delete(wake)
        clearTimeout(timer)
        resolve(found)
      }
      const timer = setTimeout(() => {
        waiters.delete(wake)
        reject(new Error(`Test mailbox: no ${what} after ${ms} ms (${messages.length} message(s) received)`))
      }, ms)
      waiters.add(wake)
      wake()
    })
  }

  const mailbox: TestMailbox = {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    waitForMessage: (count = 1, ms = 5_000) => waitFor(() => messages[count - 1], ms, `message #${count}`),
    waitForMail(address, { since, timeoutMs = 5_000 } = {}) {
      const wanted = address.toLowerCase()
      const isFor = (m: TestMail) => m.envelopeTo.some((a) => a.toLowerCase() === wanted)
      const pick = since === undefined ? () => messages.findLast(isFor) : () => messages.slice(since).find(isFor)
      return waitFor(pick, timeoutMs, `message to ${address}`)
    },
    async linkFor(address, wait) {
      const mail = await mailbox.waitForMail(address, wait)
      const [link] = mail.links
      if (!link) throw new Error(`Test mailbox: the message to ${address} has no link`)
      return link
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
  return mailbox
}

function flatten(mail: ParsedMail, envelopeTo: string[]): TestMail {
  const html = typeof mail.html === "string" ? mail.html : ""
  const text = mail.text ?? ""
  const hrefs = [...html.matchAll(/href\s*=\s*"([^"]*)"/gi)].map((match) => decodeEntities(match[1] ?? ""))
  const urls = [...text.matchAll(/https?:\/\/[^\s<>"]+/gi)].map((match) => match[0])
  const addresses = (field: ParsedAddress | ParsedAddress[] | undefined) => [field ?? []].flat().flatMap((group) => group.value)
  return {
    to: addresses(mail.to)
      .map((a) => a.address ?? "")
      .filter(Boolean),
    envelopeTo,
    from: addresses(mail.from)
      .map((a) => (a.name ? `${a.name} <${a.address ?? ""}>` : (a.address ?? "")))
      .join(", "),
    subject: mail.subject ?? "",
    text,
    html,
    links: [...hrefs, ...urls],
  }
}

function decodeEntities(value: string): string {
  return value.replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&")
}
