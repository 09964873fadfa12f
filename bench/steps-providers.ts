/**
 * The steps bench's email and TOTP sign-ins, for the bench app (bench/app.ts, BENCH_STEPS=1, authchart
 * from `dist/`): an email provider whose
 * links are kept in `mail` for the runner, and a credentials provider `totp` whose users `totp-*` answer
 * a TOTP step (secret from bench/totp-secret.ts, kept per user as an app would keep it) on its own flow.
 * The caller passes authchart's functions, from wherever it loads them.
 */
import { EMAIL_PROVIDER_ID, TOTP_FLOW_ID, TOTP_PROVIDER_ID } from "./shared.js"
import { benchTotpSecret } from "./totp-secret.js"

/** What of authchart the providers are made with (loose: `dist/` and the sources have the same shapes). */
export interface StepsLib {
  Credentials: (options: any) => object
  credentialsFlow: any
  extendFlow: (flow: any, steps: any[]) => object
  totpStep: (options: { secretFor: (user: { id?: string }) => Promise<string | null> }) => unknown
}

/** The TOTP flow and the email and TOTP providers; sent links land in `mail` (address → URL). */
export function stepsProviders(lib: StepsLib, mail: Map<string, string>): { flows: object[]; providers: object[] } {
  const secrets = new Map<string, string>()
  const secretFor = async (user: { id?: string }) => {
    if (!user.id?.startsWith("totp-")) return null
    let secret = secrets.get(user.id)
    if (!secret) secrets.set(user.id, (secret = await benchTotpSecret(user.id)))
    return secret
  }
  return {
    flows: [{ ...lib.extendFlow(lib.credentialsFlow, [lib.totpStep({ secretFor })]), id: TOTP_FLOW_ID }],
    providers: [
      {
        id: EMAIL_PROVIDER_ID,
        name: "Email",
        type: "email",
        from: "bench@example.test",
        maxAge: 86_400,
        sendVerificationRequest: ({ identifier, url }: { identifier: string; url: string }) => {
          if (mail.size > 100_000) mail.clear()
          mail.set(identifier, url)
        },
      },
      {
        ...lib.Credentials({
          id: TOTP_PROVIDER_ID,
          name: "Password + TOTP",
          credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
          authorize: async (credentials: Record<string, unknown>) => {
            const name = String(credentials.username)
            return name.startsWith("totp-") && credentials.password === "bench" ? { id: name, name, email: `${name}@bench.test` } : null
          },
        }),
        flow: TOTP_FLOW_ID,
      },
    ],
  }
}
