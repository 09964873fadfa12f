/**
 * The default magic-link message: the same subject, text and look as Auth.js' email, built safely.
 *
 * @example
 * ```ts
 * import { renderVerificationEmail } from "authchart/providers/email-message"
 * const { subject, text, html } = renderVerificationEmail({
 *   url: "https://app.example/auth/callback/email?token=…",
 *   host: "app.example",
 *   theme: { brandColor: "#0a7d32" },
 * })
 * // subject === "Sign in to app.example"
 * ```
 * With `language` (e.g. `de` from `authchart/messages`, or the `language` a `sendVerificationRequest` is
 * given) the message is written in it; English by default. Every value is HTML-escaped. The link appears only as the button's `href` and in the text part.
 * A zero-width space goes before each `.` of the host shown in the HTML, so mail clients do not turn
 * it into a second, confusing link. Theme colours must be CSS hex, `rgb()`/`rgba()`, `hsl()`/`hsla()`
 * or a named colour; anything else falls back to the default (`#346df1` button, `#fff` label).
 */
import type { Theme } from "../types.js"
import { english, type Language, text } from "../messages/text.js"

/** What the message is about: the sign-in link, the host it signs into, and the page theme. */
export interface VerificationEmailParams {
  /** The magic link (`http:` or `https:`). */
  url: string
  /** The host shown to the reader, usually `new URL(url).host`. */
  host: string
  theme?: Theme
  /** The language it is written in. Default English. */
  language?: Language
}

/** A message ready for any mail API. */
export interface VerificationEmail {
  subject: string
  text: string
  html: string
}

const DEFAULT_BRAND_COLOR = "#346df1"
const DEFAULT_BUTTON_TEXT = "#fff"
const ZERO_WIDTH_SPACE = "&#8203;"

/** Renders the verification (magic link) email; throws a `TypeError` for a link that is not http(s). */
export function renderVerificationEmail({ url, host, theme = {}, language = english }: VerificationEmailParams): VerificationEmail {
  if (!isHttpUrl(url)) throw new TypeError("The verification link must be an absolute http(s) URL.")
  const brandColor = escapeHtml(safeColor(theme.brandColor, DEFAULT_BRAND_COLOR))
  const buttonText = escapeHtml(safeColor(theme.buttonText, DEFAULT_BUTTON_TEXT))
  const shownHost = escapeHtml(host).replaceAll(".", `${ZERO_WIDTH_SPACE}.`)
  const href = escapeHtml(url)
  const textColor = "#444"
  const font = "font-family: Helvetica, Arial, sans-serif;"
  // the host in <strong> inside the escaped heading: split the text at its placeholder
  const [before = "", after = ""] = (language.messages["magicLink.heading"] ?? "Sign in to {host}").split("{host}")
  const heading = `${escapeHtml(before)}<strong>${shownHost}</strong>${escapeHtml(after)}`

  const html = `<body style="background: #f9f9f9;">
  <table width="100%" border="0" cellspacing="20" cellpadding="0"
    style="background: #fff; max-width: 600px; margin: auto; border-radius: 10px;">
    <tr>
      <td align="center" style="padding: 10px 0px; font-size: 22px; ${font} color: ${textColor};">
        ${heading}
      </td>
    </tr>
    <tr>
      <td align="center" style="padding: 20px 0;">
        <table border="0" cellspacing="0" cellpadding="0">
          <tr>
            <td align="center" style="border-radius: 5px;" bgcolor="${brandColor}"><a href="${href}"
                target="_blank"
                style="font-size: 18px; ${font} color: ${buttonText}; text-decoration: none; border-radius: 5px; padding: 10px 20px; border: 1px solid ${brandColor}; display: inline-block; font-weight: bold;">${escapeHtml(text(language, "magicLink.button"))}</a></td>
          </tr>
        </table>
      </td>
    </tr>
    <tr>
      <td align="center" style="padding: 0px 0px 10px 0px; font-size: 16px; line-height: 22px; ${font} color: ${textColor};">
        ${escapeHtml(text(language, "magicLink.ignore"))}
      </td>
    </tr>
  </table>
</body>
`
  const subject = text(language, "magicLink.subject", { host })
  return { subject, text: `${subject}\n${url}\n\n`, html }
}

function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url)
    return protocol === "https:" || protocol === "http:"
  } catch {
    return false
  }
}

function escapeHtml(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;")
}

const HEX_COLOR = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i
const FUNCTIONAL_COLOR = /^(?:rgb|hsl)a?\((?:[\s,/]*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:%|deg|grad|rad|turn)?){3,4}\s*\)$/i

const NAMED_COLORS: ReadonlySet<string> = new Set(
  (
    "aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown " +
    "burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan " +
    "darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid " +
    "darkred darksalmon darkseagreen darkslateblue darkslategray darkslategrey darkturquoise darkviolet " +
    "deeppink deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro " +
    "ghostwhite gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki " +
    "lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow " +
    "lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray " +
    "lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine " +
    "mediumblue mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise " +
    "mediumvioletred midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab " +
    "orange orangered orchid palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru " +
    "pink plum powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown " +
    "seagreen seashell sienna silver skyblue slateblue slategray slategrey snow springgreen steelblue tan " +
    "teal thistle tomato turquoise violet wheat white whitesmoke yellow yellowgreen"
  ).split(" "),
)

function safeColor(value: string | undefined, fallback: string): string {
  const color = value?.trim()
  if (!color || color.length > 64) return fallback
  if (HEX_COLOR.test(color) || FUNCTIONAL_COLOR.test(color) || NAMED_COLORS.has(color.toLowerCase())) return color
  return fallback
}
