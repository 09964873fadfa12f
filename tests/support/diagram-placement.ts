/**
 * Where Mermaid actually put each state of a drawn `stateDiagram-v2`: for every state node and composite
 * state box in the SVG, the innermost composite box that encloses it on the page. Mermaid may draw a
 * composite state as a nested group or flatten it into one layer of boxes, so this reads geometry, not
 * the DOM tree.
 */
import type { Locator } from "playwright-core"
import type { AnyStateMachine, AnyStateNode } from "xstate"
import { machineDiagram } from "../../src/inspect/diagram.js"

/** Mermaid id of a drawn state → Mermaid id of the composite state drawn around it (null: top level). */
export type Placement = Record<string, string | null>

/**
 * Runs in the page (a string, so no transpiler helper leaks into it): boxes of composite states and of
 * state nodes, then for each the smallest composite box enclosing it.
 */
const PLACEMENT_SCRIPT = `(element) => {
  var boxes = [];
  function add(id, g, composite) {
    var r = g.getBoundingClientRect();
    boxes.push({ id: id, left: r.left, top: r.top, right: r.right, bottom: r.bottom, composite: composite });
  }
  element.querySelectorAll("g.statediagram-cluster[data-id]").forEach(function (g) { add(g.getAttribute("data-id"), g, true); });
  var prefix = element.id + "-state-";
  element.querySelectorAll("g.node").forEach(function (g) {
    if (g.id.indexOf(prefix) === 0) add(g.id.slice(prefix.length).replace(/-[0-9]+$/, ""), g, false);
  });
  function area(b) { return (b.right - b.left) * (b.bottom - b.top); }
  function inside(a, b) { return a.left >= b.left - 1 && a.right <= b.right + 1 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1; }
  var placement = {};
  boxes.forEach(function (box) {
    var around = boxes.filter(function (o) { return o.composite && o.id !== box.id && inside(box, o); });
    around.sort(function (a, b) { return area(a) - area(b); });
    placement[box.id] = around.length ? around[0].id : null;
  });
  return placement;
}`

/** The placement of every state drawn in `svg` (a locator of one `<svg>` Mermaid rendered). */
export async function drawnPlacement(svg: Locator): Promise<Placement> {
  return (await svg.evaluate((element, script) => (0, eval)(script)(element), PLACEMENT_SCRIPT)) as Placement
}

function states(node: AnyStateNode): AnyStateNode[] {
  return (Object.values(node.states) as AnyStateNode[]).flatMap((child) => [child, ...states(child)])
}

/** Where every state of the machine belongs: its parent state's Mermaid id (null at the top level). */
export function expectedPlacement(machine: AnyStateMachine): Placement {
  const { ids } = machineDiagram(machine)
  const placement: Placement = {}
  for (const node of states(machine.root)) {
    const parent = node.parent?.parent ? ids[node.parent.path.join(".")] : null
    placement[ids[node.path.join(".")] as string] = parent ?? null
  }
  return placement
}
