/**
 * An app with the email code provider sending through the test SMTP server, and the two requests of its
 * flow as a browser makes them: post the address (and wait for the mail), type the code.
 */
import { afterAll, beforeAll } from "vitest"
import type { AuthConfig } from "../../src/index.js"
import EmailCode from "../../src/providers/email-code/index.js"
import { AuthClient, SECRET, captureLogger } from "../helpers.js"
import { type RedisServer, type TestRedisClient, connectClient, startRedis } from "./redis-server.js"
import { type ParsedMessage, type SmtpCapture, startSmtp } from "./smtp.js"

/** The real peers of an email code test file: the SMTP server and a redis-server, up for the whole file. */
export interface CodePeers {
  smtp: SmtpCapture
  redis: TestRedisClient
}

/** Starts the test SMTP server and a redis-server before the file's tests, and stops them after. */
export function usePeers(): CodePeers {
  const peers = {} as CodePeers
  let server: RedisServer | undefined
  beforeAll(async () => {
    ;[peers.smtp, server] = await Promise.all([startSmtp(), startRedis()])
    peers.redis = await connectClient(server.url)
  })
  afterAll(async () => {
    peers.redis?.destroy()
    await Promise.all([peers.smtp?.stop(), server?.stop()])
  })
  return peers
}

/** The 6-digit code of a code message. */
export function codeIn(mail: ParsedMessage): string {
  const code = /\b(\d{6})\b/.exec(mail.text)?.[1]
  if (!code) throw new Error(`no code in: ${mail.text}`)
  return code
}

export function emailCodeApp(extra: Partial<AuthConfig>, smtp: SmtpCapture) {
  const log = captureLogger()
  const events: string[] = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    providers: [EmailCode({ server: smtp.url, from: "authchart <auth@example.test>" })],
    events: { signIn: ({ user, isNewUser }) => void events.push(`signIn:${user.email}:${isNewUser}`) },
    ...extra,
  }
  const client = new AuthClient(config)

  /** Posts the address from the sign-in page; waits for the message unless `noMail`. */
  async function requestCode(email: string | undefined, options: { callbackUrl?: string; noMail?: boolean; by?: AuthClient } = {}) {
    const by = options.by ?? client
    const before = smtp.messages.length
    const csrfToken = await by.csrf()
    const form: Record<string, string> = { csrfToken, ...(email === undefined ? {} : { email }) }
    if (options.callbackUrl) form.callbackUrl = options.callbackUrl
    const res = await by.send("/auth/signin/email-code", { form })
    const mail = options.noMail ? (undefined as never) : await smtp.waitForMessage(before + 1)
    return { res, mail: mail as ParsedMessage }
  }

  /** Types a code on the code page, as its form posts it. */
  async function enterCode(code: string, by: AuthClient = client) {
    const csrfToken = await by.csrf()
    return by.send("/auth/callback/email-code", { form: { csrfToken, step: "code", code } })
  }

  return { config, client, log, events, requestCode, enterCode }
}
