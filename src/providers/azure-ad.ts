/**
 * Sign in with Azure Active Directory: the {@link MicrosoftEntraID} preset under its former name.
 *
 * @example
 * ```ts
 * import AzureAD from "authchart/providers/azure-ad"
 * AzureAD() // reads AUTH_AZURE_AD_ID, AUTH_AZURE_AD_SECRET and AUTH_AZURE_AD_ISSUER
 * ```
 * Kept for apps that still use the `azure-ad` id (`/auth/signin/azure-ad`); its name is "Azure Active
 * Directory". New apps use `authchart/providers/microsoft-entra-id`.
 */
import MicrosoftEntraID, { type MicrosoftEntraIDOptions } from "./microsoft-entra-id.js"
import type { OIDCConfig } from "./oauth-types.js"
import type { AzureADProfile } from "./profiles/azure-ad.js"

export type { AzureADProfile } from "./profiles/azure-ad.js"

export default function AzureAD(options: MicrosoftEntraIDOptions = {}): OIDCConfig<AzureADProfile> {
  return { ...MicrosoftEntraID(options), id: "azure-ad", name: "Azure Active Directory" }
}
