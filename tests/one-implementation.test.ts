/**
 * One implementation: each job belongs to the dependency named for it (xstate interprets the machines
 * through its public API, jose reads and writes JOSE, oauth4webapi talks to providers over `fetch`,
 * @simplewebauthn verifies passkeys, `node:crypto` hashes). This reads every source file under `src/`
 * (but `src/testing/`, which starts real servers for an app's tests) with the TypeScript compiler's own
 * parser and fails when a hand-written copy of one of those jobs comes back: sockets opened by hand, a
 * hash or HMAC computed outside `node:crypto`, CBOR/COSE decoded in place, JWE ciphers driven directly,
 * or an xstate member that is not public API.
 */
import { readFileSync, readdirSync } from "node:fs"
import { join, relative } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { repoRoot } from "./support/packed.js"

/** Modules that open or accept connections; only these named, socket-free helpers may be imported from them. */
const socketModules: Record<string, ReadonlySet<string>> = {
  net: new Set(["isIP", "isIPv4", "isIPv6", "BlockList", "SocketAddress"]),
  tls: new Set(),
  http: new Set(),
  https: new Set(),
  http2: new Set(),
  dgram: new Set(),
}

/** The initial values and round constants of MD5, SHA-1 and SHA-2: no code but a hash function's own has them. */
const hashConstants = new Set([
  0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0, 0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6, 0x428a2f98, 0x71374491,
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0xd76aa478,
])

/** Members xstate keeps to itself (its interpreter's internals), whatever their spelling. */
const xstateInternals = new Set(["getTransitionData", "microstep", "macrostep", "resolveActionsAndContext", "getStateNodes", "_nodes"])

/** xstate's public entry points: its package's `exports`. */
const xstatePublic = new Set(["xstate", "xstate/guards", "xstate/actions", "xstate/dev", "xstate/graph", "xstate/actors"])

/**
 * Underscore members of other packages that are read on purpose, each for a reason a comment beside it
 * gives: Express 4 has no other way to its router, body-parser's `_body` is the flag every body parser
 * sets and reads, node-redis has no public way to refresh a cluster's slot map (redis/node-redis#2806).
 */
const allowedUnderscore: Record<string, ReadonlySet<string>> = {
  "src/integration/express.ts": new Set(["_router"]),
  "src/integration/body.ts": new Set(["_body"]),
  "src/stores/redis-client.ts": new Set(["_slots"]),
}

function moduleName(specifier: string): string | undefined {
  const bare = specifier.startsWith("node:") ? specifier.slice(5) : specifier
  return bare.split("/")[0]
}

/** What in one source file does a dependency's job a second time: `line: what` each. */
function secondImplementations(path: string, source: string): string[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found: string[] = []
  const report = (node: ts.Node, what: string) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file))
    found.push(`${line + 1}: ${what}`)
  }
  const hexes = new Set<string>()
  let shiftBy5 = false
  let mask31 = false

  const checkModule = (node: ts.Node, specifier: string, names: readonly string[] | "all") => {
    const mod = moduleName(specifier)
    const allowed = mod !== undefined && (specifier.startsWith("node:") || !specifier.includes("/")) ? socketModules[mod] : undefined
    if (allowed) {
      const bad = names === "all" ? ["*"] : names.filter((name) => !allowed.has(name))
      if (bad.length > 0) report(node, `socket module ${specifier}: ${bad.join(", ")}`)
    }
    if (specifier.startsWith("xstate") && !xstatePublic.has(specifier)) report(node, `xstate internal module ${specifier}`)
    if (/cbor|cose/i.test(specifier) && !specifier.startsWith("@simplewebauthn/")) report(node, `CBOR/COSE module ${specifier}`)
  }

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && !node.importClause?.isTypeOnly) {
      const bindings = node.importClause?.namedBindings
      const names =
        bindings && ts.isNamedImports(bindings)
          ? bindings.elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text)
          : node.importClause?.name || (bindings && ts.isNamespaceImport(bindings))
            ? "all"
            : []
      checkModule(node, node.moduleSpecifier.text, names)
    }
    if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && !node.isTypeOnly) {
      checkModule(node, node.moduleSpecifier.text, "all")
    }
    if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require")) {
        checkModule(node, node.arguments[0].text, "all")
      }
    }
    if (ts.isIdentifier(node) && (node.text === "createCipheriv" || node.text === "createDecipheriv")) {
      report(node, `${node.text}: JWE and other ciphers are jose's`)
    }
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
      const name = ts.isPropertyAccessExpression(node)
        ? node.name.text
        : ts.isStringLiteralLike(node.argumentExpression)
          ? node.argumentExpression.text
          : undefined
      if (name !== undefined && xstateInternals.has(name)) report(node, `xstate internal member ${name}`)
      else if (name?.startsWith("_") && !allowedUnderscore[path]?.has(name)) report(node, `private member ${name}`)
    }
    if (ts.isNumericLiteral(node)) {
      const value = Number(node.text)
      const written = node.getText(file).toLowerCase()
      if (hashConstants.has(value)) report(node, `hash constant ${written}`)
      if (written.startsWith("0x")) hexes.add(Number(written).toString(16))
      if (value === 31 || value === 0x1f)
        mask31 ||= ts.isBinaryExpression(node.parent) && node.parent.operatorToken.kind === ts.SyntaxKind.AmpersandToken
      if (value === 5)
        shiftBy5 ||=
          ts.isBinaryExpression(node.parent) && node.parent.operatorToken.kind === ts.SyntaxKind.GreaterThanGreaterThanGreaterThanToken
      if (value === 5)
        shiftBy5 ||= ts.isBinaryExpression(node.parent) && node.parent.operatorToken.kind === ts.SyntaxKind.GreaterThanGreaterThanToken
    }
    if (
      (ts.isFunctionDeclaration(node) || ts.isVariableDeclaration(node) || ts.isClassDeclaration(node)) &&
      node.name &&
      ts.isIdentifier(node.name)
    ) {
      if (/cbor|^cose|Cose[A-Z]|sha1|hmacSha|aesCbc|jweCompact|compactJwe/i.test(node.name.text)) report(node, `declares ${node.name.text}`)
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  // RFC 2104's inner and outer pads together: an HMAC built by hand over a hash
  if (hexes.has("36") && hexes.has("5c")) found.push("HMAC pads 0x36 and 0x5c")
  // CBOR's initial byte split into major type (top 3 bits) and additional information (low 5 bits)
  if (shiftBy5 && mask31) found.push("CBOR initial-byte decoding (>> 5 with & 0x1f)")
  return found
}

const sources = readdirSync(join(repoRoot, "src"), { recursive: true, encoding: "utf8" })
  .filter((name) => name.endsWith(".ts") && !name.startsWith("testing/"))
  .map((name) => relative(repoRoot, join(repoRoot, "src", name)))

describe("one implementation: no hand-written copy of a dependency's job in src/", () => {
  it.each(sources)("%s", (path) => {
    expect(secondImplementations(path, readFileSync(join(repoRoot, path), "utf8"))).toEqual([])
  })

  it("finds each kind of copy in a sample, and lets the libraries' own use pass", () => {
    const source = [
      'import { connect } from "node:net"', // 1
      'import * as tls from "node:tls"', // 2
      'import { isIP } from "node:net"', // 3: fine
      'import { createHmac } from "node:crypto"', // 4: fine
      "const h = [0x67452301, 0xefcdab89]", // 5
      "const major = byte >> 5, info = byte & 0x1f", // 6
      "const pad = Buffer.alloc(64, 0x36); pad.fill(0x5c)", // 7
      'const d = createDecipheriv("aes-256-cbc", k, iv)', // 8
      "const nodes = snapshot._nodes", // 9
      "const t = node.getTransitionData(snapshot, event)", // 10
      'import { machine } from "xstate/dist/xstate.cjs.js"', // 11
      "function decodeCbor(bytes) {}", // 12
      'import { transition, initialTransition, createActor } from "xstate"', // 13: fine
      'import { decodeCredentialPublicKey } from "@simplewebauthn/server/helpers"', // 14: fine
      'const mod = await import("node:tls")', // 15
      'import type { Socket } from "node:net"', // 16: fine (a type only)
    ].join("\n")
    expect(secondImplementations("sample.ts", source)).toEqual([
      "1: socket module node:net: connect",
      "2: socket module node:tls: *",
      "5: hash constant 0x67452301",
      "5: hash constant 0xefcdab89",
      "8: createDecipheriv: JWE and other ciphers are jose's",
      "9: xstate internal member _nodes",
      "10: xstate internal member getTransitionData",
      "11: xstate internal module xstate/dist/xstate.cjs.js",
      "12: declares decodeCbor",
      "15: socket module node:tls: *",
      "HMAC pads 0x36 and 0x5c",
      "CBOR initial-byte decoding (>> 5 with & 0x1f)",
    ])
  })
})
