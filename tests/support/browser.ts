/**
 * Debian's Chromium driven by playwright-core, headless, offline-safe flags, a fresh profile each time.
 * `launchBrowser()` returns a persistent context and a way to close it and its profile.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BrowserContext, chromium } from "playwright-core"

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
]

export interface Browser {
  readonly context: BrowserContext
  close(): Promise<void>
}

export async function launchBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), "authchart-chromium-"))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    timeout: 30_000,
  })
  return {
    context,
    async close() {
      await context.close().catch(() => {})
      await rm(profile, { recursive: true, force: true })
    },
  }
}

/** A CDP virtual authenticator: a platform passkey by default, or a plain security key. */
export type VirtualAuthenticator = "passkey" | "security-key"

const AUTHENTICATORS: Record<VirtualAuthenticator, Record<string, unknown>> = {
  passkey: {
    protocol: "ctap2",
    transport: "internal",
    hasResidentKey: true,
    hasUserVerification: true,
    isUserVerified: true,
    automaticPresenceSimulation: true,
  },
  "security-key": {
    protocol: "ctap2",
    transport: "usb",
    hasResidentKey: false,
    hasUserVerification: false,
    automaticPresenceSimulation: true,
  },
}

/**
 * A new tab with its own virtual authenticator. `autofill: false` (default) hides conditional UI, which
 * the virtual authenticator would otherwise answer at once.
 */
export async function authenticatorTab(
  browser: Browser,
  options: { kind?: VirtualAuthenticator; autofill?: boolean } = {},
): Promise<import("playwright-core").Page> {
  const page = await browser.context.newPage()
  if (!options.autofill) {
    await page.addInitScript(() => {
      PublicKeyCredential.isConditionalMediationAvailable = async () => false
    })
  }
  const cdp = await browser.context.newCDPSession(page)
  await cdp.send("WebAuthn.enable", { enableUI: false })
  await cdp.send("WebAuthn.addVirtualAuthenticator", { options: AUTHENTICATORS[options.kind ?? "passkey"] as never })
  return page
}
