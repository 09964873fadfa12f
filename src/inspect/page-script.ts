/**
 * The inspector page's script (runs in the browser, inlined with a CSP nonce). It renders the diagrams
 * with Mermaid when the page loaded it, follows the Server-Sent Events feed, keeps the recent flows,
 * highlights in each diagram the current state and the states the flow came through, opens a diagram
 * large (zoomable) in a dialog, and shows the timeline of the selected flow. Everything it
 * writes from data goes through `textContent`; Mermaid's SVG comes from its strict (sanitising) mode.
 */
export const PAGE_SCRIPT = `
"use strict";
(function () {
  var data = JSON.parse(document.getElementById("inspector-data").textContent);
  var flows = new Map();
  var selected = null;
  var maxEvents = 200;
  var maxFlows = 50;
  var nodeIndex = new Map();
  var pending = false;

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function short(id) { return id.slice(0, 8); }
  function clock(at) {
    var d = new Date(at);
    function p(n, w) { return String(n).padStart(w || 2, "0"); }
    return p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds()) + "." + p(d.getMilliseconds(), 3);
  }
  function statusOf(r) {
    return r.status === "resting" && r.expiresAt && r.expiresAt < Date.now() ? "expired" : r.status;
  }
  function detail(e) {
    switch (e.type) {
      case "request": return e.method + " " + e.action + " \\u2192 " + e.event;
      case "transition": return e.state + " \\u2190 " + e.event;
      case "effect": return e.effect + " " + e.phase;
      case "persist": return "rests in " + e.state + " until " + clock(e.expiresAt);
      case "end": return e.state + (e.ok ? " \\u2713" : " \\u2717 " + (e.errorType || "failed"));
    }
    return "";
  }
  function latest(flowDef) {
    var best = null;
    flows.forEach(function (r) {
      if ((flowDef === undefined || r.flow === flowDef) && (!best || r.updatedAt >= best.updatedAt)) best = r;
    });
    return best;
  }
  function focusFor(flowDef) {
    var s = selected && flows.get(selected);
    if (s && s.flow === flowDef) return s;
    return latest(flowDef);
  }

  function indexNodes(flowDef, svg) {
    var map = new Map();
    var prefix = svg.id + "-state-";
    svg.querySelectorAll("g.node").forEach(function (g) {
      if (!g.id || g.id.indexOf(prefix) !== 0) return;
      map.set(g.id.slice(prefix.length).replace(/-[0-9]+$/, ""), g);
    });
    nodeIndex.set(flowDef, map);
  }
  function nodesFor(diagram, state) {
    var map = nodeIndex.get(diagram.id);
    if (!map) return [];
    return state.split(",").map(function (s) { return map.get(diagram.ids[s]); }).filter(Boolean);
  }

  // The page's policy takes style elements by nonce only. While Mermaid draws, its style elements get
  // this script's nonce: the one it creates, and the one in the drawn SVG it sanitises (DOMPurify parses
  // the SVG with DOMParser, which Chromium checks against the page's policy) and answers.
  var nonce = document.currentScript ? document.currentScript.nonce : "";
  function withNonce(render) {
    var create = document.createElement;
    var parse = DOMParser.prototype.parseFromString;
    document.createElement = function (name, options) {
      var element = create.call(document, name, options);
      if (String(name).toLowerCase() === "style") element.nonce = nonce;
      return element;
    };
    DOMParser.prototype.parseFromString = function (text, type) {
      var svg = /<svg[^>]*\\sid="flow-diagram-/.test(String(text));
      return parse.call(this, svg ? String(text).replace(/<style(?=[\\s>])/g, '<style nonce="' + nonce + '"') : text, type);
    };
    return render().finally(function () {
      document.createElement = create;
      DOMParser.prototype.parseFromString = parse;
    });
  }

  function renderDiagrams() {
    var m = window.mermaid;
    if (!m) {
      document.getElementById("no-mermaid").hidden = false;
      document.querySelectorAll("article.diagram details").forEach(function (d) { d.open = true; });
      return Promise.resolve();
    }
    m.initialize({ startOnLoad: false, securityLevel: "strict", theme: "default" });
    var chain = Promise.resolve();
    data.diagrams.forEach(function (d, i) {
      chain = chain.then(function () {
        var article = document.querySelector('article.diagram[data-index="' + i + '"]');
        var box = article.querySelector(".svg");
        return withNonce(function () { return m.render("flow-diagram-" + i, d.mermaid); }).then(function (out) {
          box.innerHTML = out.svg;
          var svg = box.querySelector("svg");
          if (svg) {
            // Mermaid repeats a classDef inline with !important on each shape, which no highlight could
            // override; its style element keeps the same look, under the inspector's highlights
            svg.querySelectorAll("g.node > [style*='!important']").forEach(function (shape) { shape.removeAttribute("style"); });
            indexNodes(d.id, svg);
          }
          article.dataset.rendered = "true";
        }, function (err) {
          box.textContent = "Mermaid could not draw this diagram: " + (err && err.message ? err.message : String(err));
          article.querySelector("details").open = true;
        });
      });
    });
    return chain.then(schedule);
  }

  function renderDiagramHighlights() {
    data.diagrams.forEach(function (d, i) {
      var article = document.querySelector('article.diagram[data-index="' + i + '"]');
      var map = nodeIndex.get(d.id);
      if (map) map.forEach(function (g) { g.classList.remove("current", "live", "visited"); });
      var focus = focusFor(d.id);
      flows.forEach(function (r) {
        if (r.flow !== d.id || r === focus) return;
        var s = statusOf(r);
        if (s === "running" || s === "resting") nodesFor(d, r.state).forEach(function (g) { g.classList.add("live"); });
      });
      if (focus) {
        // the path taken: every state the focused flow's transitions entered, then where it is now
        focus.events.forEach(function (e) {
          if (e.type === "transition") nodesFor(d, e.state).forEach(function (g) { g.classList.add("visited"); });
        });
        nodesFor(d, focus.state).forEach(function (g) { g.classList.remove("visited"); g.classList.add("current"); });
      }
      article.dataset.current = focus ? focus.state : "";
      article.querySelector(".current-state").textContent = focus
        ? short(focus.flowId) + " \\u00b7 " + focus.state + " \\u00b7 " + statusOf(focus)
        : "no run yet";
    });
  }

  function renderList() {
    var list = document.getElementById("flow-list");
    list.textContent = "";
    var records = Array.from(flows.values()).reverse();
    document.getElementById("flow-count").textContent = String(records.length);
    var focus = selected && flows.get(selected) ? flows.get(selected) : latest();
    records.forEach(function (r) {
      var li = el("li");
      var b = el("button", "flow-item" + (focus === r ? " selected" : ""));
      b.type = "button";
      b.dataset.flowId = r.flowId;
      b.dataset.flow = r.flow;
      b.dataset.state = r.state;
      b.dataset.status = statusOf(r);
      b.append(el("span", "id", short(r.flowId)), el("span", "name", r.flow + " / " + r.provider),
        el("span", "state", r.state), el("span", "status status-" + statusOf(r), statusOf(r)),
        el("span", "time", clock(r.updatedAt)));
      b.addEventListener("click", function () { selected = r.flowId; schedule(); });
      li.append(b);
      list.append(li);
    });
    if (records.length === 0) list.append(el("li", "empty", "No flow has run since the inspector started."));
    document.getElementById("follow").hidden = selected === null;
  }

  function renderTimeline() {
    var focus = selected && flows.get(selected) ? flows.get(selected) : latest();
    var title = document.getElementById("timeline-title");
    var body = document.getElementById("timeline-body");
    body.textContent = "";
    if (!focus) { title.textContent = "Timeline"; return; }
    title.textContent = "Timeline of " + focus.flow + " / " + focus.provider + " " + focus.flowId;
    var t0 = focus.events.length ? focus.events[0].at : 0;
    if (focus.dropped) {
      var tr0 = el("tr"); var td0 = el("td", "dropped", focus.dropped + " earlier events not kept"); td0.colSpan = 4;
      tr0.append(td0); body.append(tr0);
    }
    focus.events.forEach(function (e) {
      var tr = el("tr", "ev ev-" + e.type + (e.type === "end" && !e.ok ? " ev-failed" : ""));
      tr.append(el("td", "time", clock(e.at)), el("td", "delta", "+" + (e.at - t0) + " ms"),
        el("td", "type", e.type), el("td", "detail", detail(e)));
      body.append(tr);
    });
  }

  function renderAll() {
    pending = false;
    renderList();
    renderTimeline();
    renderDiagramHighlights();
  }
  function schedule() {
    if (pending) return;
    pending = true;
    setTimeout(renderAll, 16);
  }

  function setStatus(state, text) {
    var s = document.getElementById("status");
    s.dataset.state = state;
    s.textContent = text;
  }

  function connect() {
    var source = new EventSource(data.eventsUrl);
    source.addEventListener("open", function () { setStatus("live", "live"); });
    source.addEventListener("error", function () { setStatus("offline", "reconnecting\\u2026"); });
    source.addEventListener("snapshot", function (msg) {
      var s = JSON.parse(msg.data);
      maxFlows = s.maxFlows; maxEvents = s.maxEvents;
      flows.clear();
      s.flows.slice().reverse().forEach(function (r) { flows.set(r.flowId, r); });
      if (selected && !flows.has(selected)) selected = null;
      setStatus("live", "live");
      schedule();
    });
    source.addEventListener("update", function (msg) {
      var u = JSON.parse(msg.data);
      var old = flows.get(u.flow.flowId);
      var events = (old ? old.events : []).concat([u.event]).slice(-maxEvents);
      flows.delete(u.flow.flowId);
      flows.set(u.flow.flowId, Object.assign({}, u.flow, { events: events }));
      while (flows.size > maxFlows) flows.delete(flows.keys().next().value);
      schedule();
    });
  }

  // A diagram opens large in a dialog: its drawing moves there (highlights and all) and back on close.
  var zoom = document.getElementById("zoom");
  var zoomBox = zoom.querySelector(".zoom-svg");
  var zoomed = null;
  var scale = 1;
  // scale 1: the drawing as large as the dialog shows whole, never smaller than Mermaid drew it
  function applyScale() {
    var svg = zoomBox.querySelector("svg");
    var box = svg && svg.viewBox && svg.viewBox.baseVal;
    if (!box || !box.width || !box.height) return;
    var room = zoomBox.getBoundingClientRect();
    var fit = Math.max(1, Math.min((room.width - 32) / box.width, (window.innerHeight * 0.92 - room.top + zoom.getBoundingClientRect().top - 32) / box.height));
    svg.style.width = Math.round(box.width * fit * scale) + "px";
    svg.style.height = "auto";
  }
  function openLarge(article) {
    var svg = article.querySelector(".svg svg");
    if (!svg || zoom.open) return;
    zoomed = article;
    scale = 1;
    document.getElementById("zoom-title").textContent = article.dataset.flow;
    zoomBox.append(svg);
    zoom.showModal();
    applyScale();
  }
  zoom.addEventListener("close", function () {
    var svg = zoomBox.querySelector("svg");
    if (svg && zoomed) {
      svg.style.width = "";
      svg.style.height = "";
      zoomed.querySelector(".svg").append(svg);
    }
    zoomed = null;
  });
  document.getElementById("zoom-in").addEventListener("click", function () { scale = Math.min(scale * 1.25, 6); applyScale(); });
  document.getElementById("zoom-out").addEventListener("click", function () { scale = Math.max(scale / 1.25, 0.25); applyScale(); });
  document.getElementById("zoom-close").addEventListener("click", function () { zoom.close(); });
  document.querySelectorAll("article.diagram").forEach(function (article) {
    article.querySelector(".enlarge").addEventListener("click", function () { openLarge(article); });
    article.querySelector(".svg").addEventListener("click", function () { openLarge(article); });
  });

  document.getElementById("follow").addEventListener("click", function () { selected = null; schedule(); });
  connect();
  schedule();
  // Mermaid loads deferred: the list and the timeline work before (and without) it
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", renderDiagrams);
  else renderDiagrams();
})();
`
