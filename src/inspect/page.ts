/**
 * The inspector page: one self-contained HTML document (inline CSS and script, no external resource).
 * Its data (diagrams, URLs) travels as JSON in a `<script type="application/json">`; everything else is
 * escaped HTML.
 */
import { PAGE_SCRIPT } from "./page-script.js"

export interface PageDiagram {
  readonly id: string
  readonly mermaid: string
  /** State path → Mermaid id. */
  readonly ids: Readonly<Record<string, string>>
}

export interface PageInput {
  readonly diagrams: readonly PageDiagram[]
  readonly eventsUrl: string
  readonly stateUrl: string
  /** The Mermaid browser bundle's URL, or undefined when `mermaid` is not installed. */
  readonly mermaidUrl: string | undefined
  readonly nonce: string
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** JSON that is safe inside a `<script>` element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")
}

const STYLE = `
:root { color-scheme: light; --line: #d9dde3; --muted: #5b6472; --accent: #2f855a; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2430; background: #f6f7f9; }
header { display: flex; align-items: center; gap: 1rem; padding: .6rem 1.2rem; background: #1d2430; color: #fff; }
header h1 { font-size: 1rem; margin: 0; font-weight: 600; }
header .hint { color: #aab3c0; font-size: .85rem; }
header a { color: #cbd5e0; }
#status { margin-left: auto; font-size: .8rem; padding: .1rem .5rem; border-radius: 1rem; background: #55606e; }
#status[data-state="live"] { background: var(--accent); }
main { display: grid; grid-template-columns: minmax(320px, 440px) minmax(0, 1fr); gap: 1rem; padding: 1rem 1.2rem; align-items: start; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem; }
h2 { font-size: .95rem; margin: 0 0 .6rem; }
#side { display: grid; gap: 1rem; position: sticky; top: 1rem; }
#flow-list { list-style: none; margin: 0; padding: 0; display: grid; gap: .3rem; max-height: 40vh; overflow: auto; }
.flow-item { width: 100%; display: grid; grid-template-columns: auto 1fr auto; gap: .1rem .6rem; text-align: left; font: inherit;
  background: #fafbfc; border: 1px solid var(--line); border-radius: 6px; padding: .35rem .5rem; cursor: pointer; }
.flow-item.selected { border-color: var(--accent); box-shadow: 0 0 0 2px #c6f6d5; }
.flow-item .id { font-family: ui-monospace, monospace; color: var(--muted); }
.flow-item .state { grid-column: 1 / 3; font-weight: 600; }
.flow-item .time { color: var(--muted); font-size: .8rem; }
.status { font-size: .75rem; padding: 0 .4rem; border-radius: 1rem; background: #e2e8f0; justify-self: end; }
.status-running { background: #bee3f8; } .status-resting { background: #fefcbf; }
.status-done { background: #c6f6d5; } .status-failed, .status-expired { background: #fed7d7; }
.empty { color: var(--muted); }
#follow { font: inherit; font-size: .8rem; margin-bottom: .4rem; }
table { width: 100%; border-collapse: collapse; font-size: .85rem; }
td { padding: .15rem .3rem; border-bottom: 1px solid #eef0f3; vertical-align: top; }
td.detail { overflow-wrap: anywhere; }
td.time, td.delta { font-family: ui-monospace, monospace; color: var(--muted); white-space: nowrap; }
td.type { font-weight: 600; }
tr.ev-failed td.detail { color: #c53030; }
#timeline { max-height: 50vh; overflow: auto; }
#timeline h2 { overflow-wrap: anywhere; }
#diagrams { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 1rem; }
article.diagram { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem; }
article.diagram h3 { margin: 0; font-size: .95rem; }
.current-state { color: var(--muted); font-size: .85rem; margin: .2rem 0 .5rem; font-family: ui-monospace, monospace; }
.svg svg { max-width: 100%; height: auto; }
pre { background: #f3f4f6; padding: .6rem; overflow: auto; font-size: .8rem; }
.notice { background: #fffbea; border: 1px solid #f6e05e; border-radius: 6px; padding: .5rem .8rem; }
article.diagram header { display: flex; align-items: baseline; gap: .6rem; }
.enlarge { margin-left: auto; font: inherit; font-size: .8rem; }
.svg svg { cursor: zoom-in; }
/* over Mermaid's own class styles (an id selector and !important: the awaiting-input fill), so ids here too */
:is(#diagrams, #zoom) g.node.visited :is(rect, path, polygon, circle) { fill: #e2f0fb !important; stroke: #3182ce !important; stroke-width: 2px !important; }
:is(#diagrams, #zoom) g.node.live :is(rect, path, polygon) { stroke: #3182ce !important; stroke-width: 2.5px !important; stroke-dasharray: 5 3 !important; }
:is(#diagrams, #zoom) g.node.current :is(rect, path, polygon, circle) { fill: #9ae6b4 !important; stroke: #22543d !important; stroke-width: 3px !important; }
.legend { font-size: .8rem; color: var(--muted); margin: 0 0 .6rem; }
.legend span { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; vertical-align: -.1rem; margin: 0 .2rem 0 .6rem; }
.legend .k-current { background: #9ae6b4; border: 2px solid #22543d; } .legend .k-visited { background: #e2f0fb; border: 2px solid #3182ce; }
.legend .k-live { border: 2px dashed #3182ce; } .legend .k-rests { background: #fff4d6; border: 2px solid #b7791f; }
dialog#zoom { width: 96vw; height: 92vh; max-width: none; max-height: none; padding: 0; border: 1px solid var(--line); border-radius: 8px; }
dialog#zoom::backdrop { background: rgba(29, 36, 48, .6); }
#zoom header { position: sticky; top: 0; display: flex; gap: .5rem; align-items: center; padding: .5rem 1rem; color: inherit; background: #fff; border-bottom: 1px solid var(--line); }
#zoom header h2 { margin: 0 auto 0 0; }
#zoom button { font: inherit; }
#zoom .zoom-svg { padding: 1rem; }
#zoom .zoom-svg svg { max-width: none !important; height: auto; cursor: default; }
`

function diagramArticle(diagram: PageDiagram, index: number): string {
  const id = escapeHtml(diagram.id)
  return `<article class="diagram" data-flow="${id}" data-index="${index}">
<header><h3>${id}</h3><button type="button" class="enlarge">Open large</button></header>
<p class="current-state">no run yet</p>
<div class="svg"></div>
<details><summary>Mermaid source</summary><pre>${escapeHtml(diagram.mermaid)}</pre></details>
</article>`
}

export function renderPage(input: PageInput): string {
  const nonce = escapeHtml(input.nonce)
  const data = { diagrams: input.diagrams, eventsUrl: input.eventsUrl, stateUrl: input.stateUrl }
  const mermaidScript = input.mermaidUrl ? `<script src="${escapeHtml(input.mermaidUrl)}" nonce="${nonce}" defer></script>` : ""
  const notice = `<p class="notice" id="no-mermaid" hidden>Mermaid is not available (install it: <code>npm install -D mermaid</code>): the diagrams' Mermaid source is shown instead.</p>`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>authchart inspector</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<header><h1>authchart inspector</h1><span class="hint">development only · redacted events · <a href="${escapeHtml(input.stateUrl)}">JSON</a></span><span id="status" data-state="connecting">connecting…</span></header>
<main>
<div id="side">
<section id="flows"><h2>Flows (<span id="flow-count">0</span>)</h2><button id="follow" type="button" hidden>Follow the latest flow</button><ul id="flow-list"></ul></section>
<section id="timeline"><h2 id="timeline-title">Timeline</h2><table><tbody id="timeline-body"></tbody></table></section>
</div>
<section><h2>Flow diagrams</h2>${notice}<p class="legend">The selected flow (else the latest):<span class="k-current"></span>its current state<span class="k-visited"></span>the states it came through<span class="k-live"></span>other flows' states<span class="k-rests"></span>rests for the next request</p><div id="diagrams">
${input.diagrams.map(diagramArticle).join("\n")}
</div></section>
</main>
<dialog id="zoom" aria-labelledby="zoom-title"><header><h2 id="zoom-title"></h2><button type="button" id="zoom-out">Zoom out</button><button type="button" id="zoom-in">Zoom in</button><button type="button" id="zoom-close">Close</button></header><div class="zoom-svg"></div></dialog>
<script type="application/json" id="inspector-data">${scriptJson(data)}</script>
${mermaidScript}
<script nonce="${nonce}">${PAGE_SCRIPT}</script>
</body>
</html>
`
}
