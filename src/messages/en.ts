/**
 * The English catalogue: every string of the built-in pages and emails, and the source of the keys.
 * `{name}` marks a value filled in when the text is drawn; keys ending in `.one` / `.other` are the
 * plural forms of one message (chosen by `Intl.PluralRules`).
 */
export const en = {
  // sign-in page
  "signin.title": "Sign In",
  "signin.submit": "Sign in with {provider}",
  "signin.register": "Register with {provider}",
  "signin.email.label": "Email",
  "signin.email.placeholder": "email@example.com",
  /** A label more than one form on the page uses, told apart by its form's method. */
  "signin.labelFor": "{label} for {method}",
  "signin.method.email": "a sign-in link",
  "signin.method.code": "a sign-in code",
  "signin.method.passkey": "your passkey",
  "signin.method.password": "password sign-in",
  // the sign-in page's message per `?error=` code
  "signin.error.Signin": "Try signing in with a different account.",
  "signin.error.OAuthSignin": "The sign-in with this provider could not be started. Try again later, or choose another way to sign in.",
  "signin.error.OAuthCallbackError":
    "The provider did not complete the sign-in: it was cancelled or refused there. Try again, or choose another way to sign in.",
  "signin.error.OAuthCreateAccount": "Try signing in with a different account.",
  "signin.error.EmailCreateAccount": "Try signing in with a different account.",
  "signin.error.Callback": "Try signing in with a different account.",
  "signin.error.OAuthAccountNotLinked": "To confirm your identity, sign in with the same account you used originally.",
  "signin.error.EmailSignin": "The e-mail could not be sent.",
  "signin.error.EmailSignInError": "Check the e-mail address and try again.",
  "signin.error.CredentialsSignin": "Sign in failed. Check the details you provided are correct.",
  "signin.error.SessionRequired": "Please sign in to access this page.",
  "signin.error.MissingCSRF": "The form expired. Please try again.",
  "signin.error.FlowStateError": "This sign-in attempt expired or was already used. Please start again.",
  "signin.error.FlowStartedElsewhere": "This sign-in was started before the site was updated and cannot be finished. Please start again.",
  "signin.error.AccountNotLinked": "This passkey or e-mail address belongs to another account.",
  "signin.error.AccessDenied": "You do not have permission to sign in.",
  "signin.error.RateLimited": "Too many attempts. Try again later.",
  /** Any other code. */
  "signin.error.default": "Unable to sign in.",
  "signin.error.retryIn.one": "Too many attempts. Try again in {minutes} minute.",
  "signin.error.retryIn.other": "Too many attempts. Try again in {minutes} minutes.",

  // sign-out page
  "signout.title": "Sign Out",
  "signout.heading": "Sign out",
  "signout.question": "Are you sure you want to sign out?",
  "signout.submit": "Sign out",
  "signout.atProvider": "Sign out of {provider} too",

  // "check your email" page after a magic link was sent
  "verifyRequest.title": "Verify Request",
  "verifyRequest.heading": "Check your email",
  "verifyRequest.sent": "A sign in link has been sent to your email address.",

  // error page, per `?error=` code
  "error.title": "Error",
  "error.signIn": "Sign in",
  "error.Configuration.heading": "Server error",
  "error.Configuration.message": "There is a problem with the server configuration.",
  "error.Configuration.hint": "Check the server logs for more information.",
  "error.AccessDenied.heading": "Access Denied",
  "error.AccessDenied.message": "You do not have permission to sign in.",
  "error.Verification.heading": "Unable to sign in",
  "error.Verification.message": "The sign in link is no longer valid.",
  "error.Verification.hint": "It may have been used already or it may have expired.",
  "error.default.heading": "Error",

  // a step's themed card (extendFlow, renderStepPage)
  "step.title": "One more step",
  "step.submit": "Continue",
  "step.cancel": "Cancel and start over",
  "step.attemptsLeft.one": "{count} attempt left.",
  "step.attemptsLeft.other": "{count} attempts left.",

  // the TOTP step
  "totp.title": "Enter your authentication code",
  "totp.submit": "Verify",
  "totp.hint": "Open your authenticator app and enter the 6-digit code it shows for this account.",
  "totp.label": "Code",
  "totp.invalid": "That code is not valid. Try again.",
  "totp.used": "That code was already used. Wait for the next one.",
  // recovery codes on a second-factor step's page (recoveryCodeStep)
  "recoveryCode.lost": "Lost your device? Use a recovery code",
  "recoveryCode.hint": "Enter one of the recovery codes you saved when you set up two-step sign-in. Each code works once.",
  "recoveryCode.label": "Recovery code",
  "recoveryCode.submit": "Use recovery code",
  "recoveryCode.invalid": "That recovery code is not valid or was already used.",

  // the re-authentication (step-up) page
  "reauth.title": "Confirm it's you",
  "reauth.submit": "Confirm",
  "reauth.hint": "For your security, confirm it is you before you go on.",
  "reauth.method": "Confirm with",
  "reauth.method.password": "Password",
  "reauth.method.passkey": "Passkey",
  "reauth.method.totp": "Authenticator app code",
  "reauth.totpLabel": "Code from your authenticator app",
  "reauth.wrongPassword": "That password is not right. Try again.",
  "reauth.chooseMethod": "Choose a way to confirm it is you.",
  "reauth.passkeyButton": "Use a passkey",
  "reauth.passkeyFailed": "That passkey could not confirm it is you. Try again, or another way.",

  // the email code provider's page and message
  "emailCode.title": "Check your email",
  "emailCode.submit": "Sign in",
  "emailCode.sent": "We sent a 6-digit code.",
  "emailCode.sentTo": "We sent a 6-digit code to {email}.",
  "emailCode.label": "Code",
  "emailCode.wrong": "That code is not right. Attempts left: {count}.",
  "emailCode.email.subject": "Your sign-in code for {host}",
  "emailCode.email.line": "Your sign-in code for {host} is {code}.",
  /** The HTML part's intro; the code follows in large type. */
  "emailCode.email.intro": "Your sign-in code for {host} is",
  "emailCode.email.expires": "It expires in {minutes} minutes.",
  "emailCode.email.ignore": "If you did not ask for it, ignore this email.",

  // the magic-link message
  "magicLink.subject": "Sign in to {host}",
  "magicLink.heading": "Sign in to {host}",
  "magicLink.button": "Sign in",
  "magicLink.ignore": "If you did not request this email you can safely ignore it.",

  // the passkey script's messages on the sign-in page
  "webauthn.cancelled": "No passkey was used: the request was cancelled or timed out, or this device has no passkey for this site.",
  "webauthn.failed": "The passkey request failed.",
  "webauthn.unsupported": "This browser does not support passkeys.",
  "webauthn.notStarted": "The passkey request could not be started ({status}).",
  /** Registering, signed out, with the email of an existing account. */
  "webauthn.accountExists":
    "This email address already has an account. Sign in to it first (with its passkey or another way), then add a passkey.",
  /** Signing in with an email that has no passkey here. */
  "webauthn.noPasskey": "No passkey is registered for this email address. Register one, or sign in another way.",

  // the second-factor pages (<basePath>/factors, docs/second-factors.md)
  "factors.title": "Sign-in and security",
  "factors.totp.heading": "Authenticator app",
  "factors.totp.on": "On",
  "factors.totp.off": "Off",
  "factors.totp.enrol": "Set up an authenticator app",
  "factors.totp.remove": "Turn off",
  "factors.passkeys.heading": "Passkeys",
  "factors.passkeys.none": "No passkeys.",
  "factors.passkey.unnamed": "Unnamed passkey",
  "factors.passkey.lastUsed": "Last used {when}",
  "factors.passkey.notUsed": "Not used yet",
  "factors.passkey.newName": "New name",
  "factors.passkey.rename": "Rename",
  "factors.passkey.delete": "Delete",
  "factors.passkey.lastWarning": "This passkey is your last way to sign in. Delete it only if you have another way back in.",
  "factors.passkey.deleteAnyway": "Delete anyway",
  "factors.recovery.heading": "Recovery codes",
  "factors.recovery.left.one": "{count} recovery code left",
  "factors.recovery.left.other": "{count} recovery codes left",
  "factors.recovery.regenerate": "Get new recovery codes",
  "factors.enrol.title": "Set up an authenticator app",
  "factors.enrol.scan": "Scan this code with your authenticator app, or enter the key below.",
  "factors.enrol.label": "Code from the app",
  "factors.enrol.submit": "Turn on",
  "factors.enrol.cancel": "Cancel",
  "factors.codes.title": "Your recovery codes",
  "factors.codes.enrolled": "Authenticator app is on",
  "factors.codes.new": "New recovery codes",
  "factors.codes.keep":
    "Keep these recovery codes somewhere safe. Each one signs you in once if you lose your authenticator app. They are shown only now.",
  "factors.codes.done": "Done",
  /** A factor route asked without a session (its JSON answer's message). */
  "factors.signInFirst": "Sign in first.",
  "factors.refused.ProofTooOld": "Sign in again to confirm it is you, then try again.",
  "factors.refused.FactorNotFound": "There is no such factor on your account.",
  "factors.refused.LastSignInMethod": "This is your last way to sign in.",
  "factors.refused.InvalidCode": "That code is not valid. Try again.",
  "factors.refused.InvalidName": "Give the passkey a name.",
  "factors.refused.NoEnrolment": "Start the setup again.",
  "factors.refused.TotpActive": "An authenticator app is already set up. Turn it off first.",
  "factors.refused.Busy": "Another change to your account is in progress. Try again.",
  "factors.done.totp-removed": "The authenticator app is turned off.",
  "factors.done.passkey-renamed": "The passkey is renamed.",
  "factors.done.passkey-deleted": "The passkey is deleted. It can no longer sign in.",
} as const

/**
 * Every key of the catalogue.
 * @example const key: MessageKey = "emailCode.wrong"
 */
export type MessageKey = keyof typeof en

/**
 * A whole language: a text for every key. A catalogue of your own is typed `Messages`, so a missing
 * key (or a misspelt one) is a type error.
 * @example const german: Messages = { ...english.messages, "emailCode.wrong": "Der Code stimmt nicht." }
 */
export type Messages = { readonly [K in MessageKey]: string }
