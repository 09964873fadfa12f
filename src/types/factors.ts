/** Options of the second-factor pages (`<basePath>/factors`, docs/second-factors.md). */
export interface FactorsOptions {
  /**
   * Seconds since the session's last proof (`authTime`) within which removing a factor, deleting a
   * passkey or regenerating recovery codes is allowed without signing in again. Default 300 (5 minutes).
   */
  freshFor?: number
  /** The issuer an authenticator app shows beside the account (`otpauth://` URI). Default: the app's host. */
  issuer?: string
}
