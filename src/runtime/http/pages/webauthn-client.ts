/**
 * The sign-in page's passkey script (plain browser JavaScript, no inline handlers, so a strict CSP
 * with `script-src 'self'` allows it). It runs after `@simplewebauthn/browser`'s bundle, in the same
 * file, and drives every `<form data-webauthn-options="…">` on the page:
 *
 * - a submit button with `data-webauthn-action="authenticate"` or `"register"` fetches
 *   `GET <options URL>?action=…&<form fields>&callbackUrl=…`, runs `startAuthentication` or
 *   `startRegistration` with the answer, and posts the form to its `action` (the provider's callback
 *   URL) with hidden `action` and `data` (the response as JSON) inputs;
 * - with `data-webauthn-conditional`, on page load it offers the browser's passkey autofill
 *   (conditional UI) in the field whose `autocomplete` ends in `webauthn`, when the browser supports it,
 *   and starts it again after a button's ceremony fails or is cancelled.
 * Errors are written into the form's `[data-webauthn-status]` element, in the page's language: the
 * English texts are in the script, and a form drawn in another language carries its own in
 * `data-webauthn-messages` (JSON, see {@link webauthnMessagesAttribute}).
 */
import { en, type Messages } from "../../../messages/en.js"
import type { Language } from "../../../messages/text.js"

type ScriptMessage = "cancelled" | "failed" | "unsupported" | "notStarted"
const SCRIPT_MESSAGES: readonly ScriptMessage[] = ["cancelled", "failed", "unsupported", "notStarted"]

/** The script's messages in a catalogue (the English text for a key it lacks). */
function scriptTexts(messages: Partial<Messages>): Readonly<Record<ScriptMessage, string>> {
  return {
    cancelled: messages["webauthn.cancelled"] ?? en["webauthn.cancelled"],
    failed: messages["webauthn.failed"] ?? en["webauthn.failed"],
    unsupported: messages["webauthn.unsupported"] ?? en["webauthn.unsupported"],
    notStarted: messages["webauthn.notStarted"] ?? en["webauthn.notStarted"],
  }
}

const ENGLISH_TEXTS = scriptTexts(en)

/**
 * The `data-webauthn-messages` value of a form drawn in `language`: the script's messages as JSON when
 * any differs from the English the script carries, else undefined (an English page has no attribute).
 */
export function webauthnMessagesAttribute(language: Language): string | undefined {
  const texts = scriptTexts(language.messages)
  return SCRIPT_MESSAGES.some((name) => texts[name] !== ENGLISH_TEXTS[name]) ? JSON.stringify(texts) : undefined
}

export const WEBAUTHN_CLIENT_SCRIPT = `
;(function () {
  "use strict"
  var lib = window.SimpleWebAuthnBrowser
  if (!lib) return
  var ENGLISH = ${JSON.stringify(ENGLISH_TEXTS)}

  function message(form, name, status) {
    var own = {}
    try {
      own = JSON.parse(form.getAttribute("data-webauthn-messages") || "{}") || {}
    } catch (error) {}
    var text = typeof own[name] === "string" ? own[name] : ENGLISH[name]
    return status === undefined ? text : text.replace("{status}", status)
  }

  function fieldsOf(form) {
    return Array.prototype.slice.call(form.querySelectorAll("input[data-form-field]"))
  }

  function say(form, message) {
    var status = form.querySelector("[data-webauthn-status]")
    if (!status) return
    status.textContent = message
    status.hidden = !message
  }

  function fetchOptions(form, action) {
    var url = new URL(form.getAttribute("data-webauthn-options"), window.location.href)
    if (action) url.searchParams.set("action", action)
    fieldsOf(form).forEach(function (field) {
      if (field.value) url.searchParams.set(field.name, field.value)
    })
    var callbackUrl = form.querySelector('input[name="callbackUrl"]')
    if (callbackUrl && callbackUrl.value) url.searchParams.set("callbackUrl", callbackUrl.value)
    return fetch(url.href, { credentials: "same-origin", headers: { accept: "application/json" } }).then(function (res) {
      return res.json().catch(function () { return null }).then(function (body) {
        if (!res.ok || !body || !body.options) {
          throw new Error((body && (body.message || body.error)) || message(form, "notStarted", String(res.status)))
        }
        return body
      })
    })
  }

  function post(form, action, response) {
    Array.prototype.slice.call(form.querySelectorAll("input[data-webauthn-field]")).forEach(function (el) {
      el.parentNode.removeChild(el)
    })
    ;[["action", action], ["data", JSON.stringify(response)]].forEach(function (pair) {
      var input = document.createElement("input")
      input.type = "hidden"
      input.name = pair[0]
      input.value = pair[1]
      input.setAttribute("data-webauthn-field", "")
      form.appendChild(input)
    })
    HTMLFormElement.prototype.submit.call(form)
  }

  function ceremony(answer, autofill) {
    return answer.action === "register"
      ? lib.startRegistration({ optionsJSON: answer.options })
      : lib.startAuthentication({ optionsJSON: answer.options, useBrowserAutofill: autofill })
  }

  function describe(form, error) {
    if (error && error.name === "NotAllowedError") return message(form, "cancelled")
    return (error && error.message) || message(form, "failed")
  }

  function autofill(form) {
    return lib.browserSupportsWebAuthnAutofill().then(function (supported) {
      if (!supported) return
      return fetchOptions(form, "authenticate").then(function (answer) {
        return ceremony(answer, true).then(function (response) {
          post(form, "authenticate", response)
        })
      })
    }).catch(function (error) {
      // A button's ceremony aborts the autofill one: nothing to report.
      if (!error || error.name !== "AbortError") console.warn("passkey autofill:", error)
    })
  }

  function setUp(form) {
    if (!lib.browserSupportsWebAuthn()) {
      say(form, message(form, "unsupported"))
      Array.prototype.slice.call(form.querySelectorAll("button")).forEach(function (b) { b.disabled = true })
      return
    }
    var conditional = form.hasAttribute("data-webauthn-conditional")
    form.addEventListener("submit", function (event) {
      event.preventDefault()
      var button = event.submitter
      var action = (button && button.getAttribute("data-webauthn-action")) || undefined
      if (action === "register" && !form.reportValidity()) return
      say(form, "")
      fetchOptions(form, action)
        .then(function (answer) {
          return ceremony(answer, false).then(function (response) { post(form, answer.action, response) })
        })
        .catch(function (error) {
          console.error(error)
          say(form, describe(form, error))
          if (conditional) autofill(form)
        })
    })
    if (conditional) autofill(form)
  }

  Array.prototype.slice.call(document.querySelectorAll("form[data-webauthn-options]")).forEach(setUp)
})()
`
