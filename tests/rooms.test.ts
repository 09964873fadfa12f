/**
 * The house's rooms (docs/development.md "Where things live"): `src/runtime/` holds only rooms, each with
 * a README.md that says what it owns, which rooms it may import (`May import:`) and which of its modules
 * the rest of the package may import (`Doors:`). This test reads those two lines and holds every import
 * of `src/` to them, type-only imports included (a type that reaches into a room ties the rooms as much
 * as a value does). It also holds the boundaries that have no README: machines stay pure, the runtime never
 * imports the add-ons built on it, and no folder grows past about twenty files.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { repoRoot } from "./support/packed.js"

const src = join(repoRoot, "src")
const runtime = join(src, "runtime")

/** A folder may hold this many modules directly; the preset catalogues hold one per provider, as @auth/core's does. */
const MAX_FILES = 20
const catalogues = new Set(["providers", "providers/profiles"])

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : []
  })
}

/** Every relative import and re-export of a module, type-only ones included, as paths relative to src/. */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false)
  const found: string[] = []
  for (const node of source.statements) {
    if (!(ts.isImportDeclaration(node) || ts.isExportDeclaration(node))) continue
    const specifier = node.moduleSpecifier
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) continue
    found.push(relative(src, resolve(dirname(file), specifier.text.replace(/\.js$/, ".ts"))))
  }
  return found
}

interface Room {
  /** What the room may import from other rooms. */
  mayImport: ReadonlySet<string>
  /** Its modules (paths inside the room) that other rooms and the rest of the package may import. */
  doors: ReadonlySet<string>
}

/** A room's two rule lines from its README, or the reason they cannot be read. */
function readRoom(readme: string): Room | string {
  const line = (label: string) => readme.match(new RegExp(`^${label}:(.*)$`, "m"))?.[1]?.trim()
  const mayImport = line("May import")
  const doors = line("Doors")
  if (mayImport === undefined || doors === undefined) return "README.md lacks a `May import:` or `Doors:` line"
  const list = (text: string) => new Set(text === "nothing" ? [] : text.split(/,\s*/).filter(Boolean))
  return { mayImport: list(mayImport), doors: list(doors) }
}

/** The room a path relative to src/ is in (`runtime/<room>/...`), or undefined outside the runtime. */
function roomOf(path: string): string | undefined {
  const parts = path.split("/")
  return parts[0] === "runtime" && parts.length > 2 ? parts[1] : undefined
}

/** Outside the runtime, what the runtime must never import: the add-ons built on top of it. */
const addOns = [/^integration\//, /^inspect\//, /^cli\//, /^cli\.ts$/, /^testing\//, /^stores\//, /^index\.ts$/, /^jwt\.ts$/]

/** What breaks the rules in one import (`from` imports `to`, both relative to src/), or null. */
function breach(from: string, to: string, rooms: ReadonlyMap<string, Room>): string | null {
  const own = roomOf(from)
  const target = roomOf(to)
  if (from.startsWith("machines/") && to.startsWith("runtime/")) return `${from} → ${to}: machines stay pure`
  if (own !== undefined && addOns.some((addOn) => addOn.test(to))) return `${from} → ${to}: the runtime imports no add-on`
  if (own !== undefined && to.startsWith("adapters/") && to !== "adapters/types.ts")
    return `${from} → ${to}: the runtime takes adapters by their interface (adapters/types.ts)`
  if (target === undefined || target === own) return null
  const room = rooms.get(target)
  if (room === undefined) return `${from} → ${to}: runtime/${target} is not a room (no README.md)`
  if (own !== undefined && !rooms.get(own)?.mayImport.has(target)) return `${from} → ${to}: runtime/${own} may not import runtime/${target}`
  const inside = to.slice(`runtime/${target}/`.length)
  if (!room.doors.has(inside)) return `${from} → ${to}: ${inside} is not a door of runtime/${target}`
  return null
}

/** A loop in the rooms' `May import:` lines (rooms named in order, the first repeated last), or [] when they stand on floors. */
function roomCycle(all: ReadonlyMap<string, Room>): string[] {
  const done = new Set<string>()
  const path: string[] = []
  const visit = (name: string): string[] => {
    const at = path.indexOf(name)
    if (at >= 0) return [...path.slice(at), name]
    if (done.has(name)) return []
    path.push(name)
    for (const next of all.get(name)?.mayImport ?? []) {
      const loop = visit(next)
      if (loop.length > 0) return loop
    }
    path.pop()
    done.add(name)
    return []
  }
  for (const name of all.keys()) {
    const loop = visit(name)
    if (loop.length > 0) return loop
  }
  return []
}

const roomNames = readdirSync(runtime, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
const rooms = new Map<string, Room>()
const unreadable: string[] = []
for (const name of roomNames) {
  const readme = join(runtime, name, "README.md")
  const room = existsSync(readme) ? readRoom(readFileSync(readme, "utf8")) : "no README.md"
  if (typeof room === "string") unreadable.push(`runtime/${name}: ${room}`)
  else rooms.set(name, room)
}

describe("the rooms of src/runtime", () => {
  it("are all it holds, each with a README that names its rules", () => {
    expect(readdirSync(runtime).filter((name) => !roomNames.includes(name))).toEqual([])
    expect(unreadable).toEqual([])
    expect(rooms.size).toBeGreaterThanOrEqual(9)
  })

  it("stand on floors: no room may import, through others, a room that may import it", () => {
    expect(roomCycle(rooms)).toEqual([])
  })

  it("list only rooms that exist, and doors that exist", () => {
    const wrong: string[] = []
    for (const [name, room] of rooms) {
      for (const other of room.mayImport) if (!rooms.has(other)) wrong.push(`${name} may import ${other}: no such room`)
      for (const door of room.doors) if (!existsSync(join(runtime, name, door))) wrong.push(`${name} door ${door}: no such file`)
    }
    expect(wrong).toEqual([])
  })

  it("every import of src/ keeps to them", () => {
    const breaches = sourceFiles(src).flatMap((file) => {
      const from = relative(src, file)
      return importsOf(file).flatMap((to) => breach(from, to, rooms) ?? [])
    })
    expect(breaches).toEqual([])
  })

  it("no folder under src/ holds more than about twenty modules directly (the preset catalogues aside)", () => {
    const crowded = [src, ...sourceFiles(src).map(dirname)]
      .filter((dir, index, all) => all.indexOf(dir) === index)
      .map((dir) => [relative(src, dir), readdirSync(dir).filter((name) => name.endsWith(".ts")).length] as const)
      .filter(([dir, count]) => count > MAX_FILES && !catalogues.has(dir))
    expect(crowded).toEqual([])
  })

  it("the check fires on each kind of breach", () => {
    const sample = new Map<string, Room>([
      ["sessions", { mayImport: new Set(["http"]), doors: new Set(["session.ts"]) }],
      ["http", { mayImport: new Set(["sessions"]), doors: new Set(["respond.ts"]) }],
      ["engine", { mayImport: new Set(["sessions", "http"]), doors: new Set(["engine.ts"]) }],
    ])
    expect(breach("runtime/sessions/session.ts", "runtime/engine/engine.ts", sample)).toBe(
      "runtime/sessions/session.ts → runtime/engine/engine.ts: runtime/sessions may not import runtime/engine",
    )
    expect(breach("runtime/engine/engine.ts", "runtime/sessions/database.ts", sample)).toBe(
      "runtime/engine/engine.ts → runtime/sessions/database.ts: database.ts is not a door of runtime/sessions",
    )
    expect(breach("integration/express.ts", "runtime/http/cookies.ts", sample)).toBe(
      "integration/express.ts → runtime/http/cookies.ts: cookies.ts is not a door of runtime/http",
    )
    expect(breach("machines/oauth.ts", "runtime/http/respond.ts", sample)).toBe(
      "machines/oauth.ts → runtime/http/respond.ts: machines stay pure",
    )
    expect(breach("runtime/http/auth.ts", "integration/express.ts", sample)).toBe(
      "runtime/http/auth.ts → integration/express.ts: the runtime imports no add-on",
    )
    expect(breach("runtime/engine/engine.ts", "runtime/sessions/session.ts", sample)).toBeNull()
    expect(breach("runtime/engine/engine.ts", "runtime/engine/store.ts", sample)).toBeNull()
    expect(readRoom("# x\n\nMay import: nothing\nDoors: a.ts, b/c.ts\n")).toEqual({
      mayImport: new Set(),
      doors: new Set(["a.ts", "b/c.ts"]),
    })
    expect(roomCycle(sample)).toEqual(["sessions", "http", "sessions"])
    expect(readRoom("# x\n")).toBe("README.md lacks a `May import:` or `Doors:` line")
  })
})
