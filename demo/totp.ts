/**
 * The demo's two-step user: credentials sign-in as `totp@example.test`, then a 6-digit code (TOTP,
 * RFC 6238) from an authenticator app. Its secret is new at every start (`createTotpEnrollment`); the
 * account page shows the enrolment QR code (with the optional `qrcode` package) and the key, and the
 * start-up lines print the key.
 */
import { type FlowDefinition, credentialsFlow, extendFlow } from "../src/index.js"
import { createTotpEnrollment, totpStep } from "../src/steps/totp.js"
import { escapeHtml } from "./pages.js"

export const DEMO_TOTP_USER = { id: "demo-totp-user", name: "TOTP User", email: "totp@example.test" } as const
const ISSUER = "authchart demo"

export interface DemoTotp {
  /** The TOTP user's base32 secret. */
  readonly secret: string
  /** Its `otpauth://` URI, what the QR code holds. */
  readonly uri: string
  /** The credentials flow with the TOTP step after the password (for `config.flows`). */
  readonly flow: FlowDefinition
  /** The account page's two-step section for the signed-in user with this email. */
  accountSection(email: string | null | undefined): Promise<string>
}

/** A fresh secret for the TOTP user, and the flow that asks for its codes. */
export function createDemoTotp(): DemoTotp {
  const enrolment = createTotpEnrollment({ accountName: DEMO_TOTP_USER.email, issuer: ISSUER })
  const flow = extendFlow(credentialsFlow, [totpStep({ secretFor: (user) => (user.id === DEMO_TOTP_USER.id ? enrolment.secret : null) })])
  let qr: Promise<string | undefined> | undefined
  const qrSvg = () => (qr ??= enrolment.qrSvg().catch(() => undefined))
  return {
    secret: enrolment.secret,
    uri: enrolment.uri,
    flow,
    async accountSection(email) {
      if (email !== DEMO_TOTP_USER.email) {
        return `<h2>Two-step sign-in</h2>
<p>Off for this account. The demo's two-step user is <strong>${DEMO_TOTP_USER.email}</strong>: sign in as them to see their enrolment QR code.</p>`
      }
      const svg = await qrSvg()
      const picture = svg
        ? `<figure class="totp-qr">${svg}<figcaption>Scan with an authenticator app</figcaption></figure>`
        : `<p>Install the optional <code>qrcode</code> package (<code>npm install qrcode</code>) to see the QR code here; meanwhile type the key into the app.</p>`
      return `<h2>Two-step sign-in</h2>
<p>On: after the password, this account asks for the 6-digit code of an authenticator app. The demo makes a new secret at every start, so enrol again after a restart.</p>
${picture}
<p>Key: <code class="totp-key">${escapeHtml(enrolment.secret)}</code></p>`
    },
  }
}
