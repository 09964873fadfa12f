/**
 * Sign in with Azure DevOps (OAuth 2).
 *
 * @example
 * ```ts
 * import AzureDevOps from "authchart/providers/azure-devops"
 * AzureDevOps({ scope: "vso.profile vso.project" }) // reads AUTH_AZURE_DEVOPS_ID and AUTH_AZURE_DEVOPS_SECRET
 * ```
 * Asks for `scope` (default `vso.profile`) with `response_type=Assertion`; the image is the user's
 * avatar as a data URL. Microsoft deprecated Azure DevOps OAuth apps in favour of Microsoft Entra ID:
 * new apps use `authchart/providers/microsoft-entra-id`.
 * @see https://learn.microsoft.com/en-us/azure/devops/integrate/get-started/authentication/oauth
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig, UserinfoRequestContext } from "./oauth-types.js"
import type { AzureDevOpsProfile } from "./profiles/azure-devops.js"
import { requestJson } from "./userinfo-request.js"

export type { AzureDevOpsProfile } from "./profiles/azure-devops.js"

const PROFILE_URL = "https://app.vssps.visualstudio.com/_apis/profile/profiles/me?details=true&coreAttributes=Avatar&api-version=6.0"

/** Options of {@link AzureDevOpsProvider}: the usual provider options, plus the scopes to ask for. */
export type AzureDevOpsOptions<P extends AzureDevOpsProfile = AzureDevOpsProfile> = OAuthUserConfig<P> & { scope?: string }

export default function AzureDevOpsProvider<P extends AzureDevOpsProfile = AzureDevOpsProfile>(
  options: AzureDevOpsOptions<P> = {},
): OAuthConfig<P> {
  const preset: OAuthConfig<P> = {
    id: "azure-devops",
    name: "Azure DevOps",
    type: "oauth",
    authorization: {
      url: "https://app.vssps.visualstudio.com/oauth2/authorize",
      params: { response_type: "Assertion", scope: options.scope ?? "vso.profile" },
    },
    token: { url: "https://app.vssps.visualstudio.com/oauth2/authorize" },
    userinfo: {
      url: PROFILE_URL,
      request: ({ tokens }: UserinfoRequestContext) =>
        requestJson(PROFILE_URL, { accessToken: tokens.access_token, timeout: options.timeout }),
    },
    profile(profile) {
      return {
        id: profile.id,
        name: profile.displayName,
        email: profile.emailAddress,
        image: `data:image/jpeg;base64,${profile.coreAttributes.Avatar.value.value}`,
      }
    },
  }
  return presetWith(preset, options)
}
