#!/usr/bin/env node
// `npm run provider-profiles`: writes src/providers/profiles/<name>.ts, the profile types of every
// `@auth/core/providers/<name>` preset (its `*Profile` interface and the types that one is built from),
// read from the installed @auth/core's declarations with the TypeScript compiler API.
//
// Field names and field types are the facts an app's code relies on, so they carry over as they are;
// documentation does not (each preset module documents its provider), and `any` becomes `unknown`
// (no `any` in public types). tests/provider-profile-types.test.ts fails when a generated type and
// Auth.js' stop being assignable both ways, e.g. after an @auth/core upgrade: run this script again.
import { spawnSync } from "node:child_process"
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

/** Modules of `@auth/core/providers` that are no provider preset with a profile. */
const NOT_PRESETS = new Set(["index", "oauth", "provider-types", "credentials", "email", "nodemailer", "webauthn", "passkey"])
/** Declarations that configure a preset rather than describe a profile. */
const CONFIG_NAME = /(Config|Options|ProviderType|ProviderId)$/

/** The `@auth/core/providers` directory next to the installed @auth/core. */
export function authjsProvidersDirectory(root) {
  return join(dirname(createRequire(join(root, "package.json")).resolve("@auth/core")), "providers")
}

/** The preset module names of `@auth/core/providers`, sorted. */
export function presetNames(directory) {
  return readdirSync(directory)
    .filter((file) => file.endsWith(".js"))
    .map((file) => file.slice(0, -3))
    .filter((name) => !NOT_PRESETS.has(name))
    .sort()
}

const anyToUnknown = (context) => {
  const visit = (node) =>
    node.kind === ts.SyntaxKind.AnyKeyword
      ? context.factory.createKeywordTypeNode(ts.SyntaxKind.UnknownKeyword)
      : ts.visitEachChild(node, visit, context)
  return (node) => ts.visitNode(node, visit)
}

/** Drops `declare`, and keeps `export` where Auth.js exports the type. */
function exported(node, factory, shown) {
  const isExported = shown || ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  const modifiers = isExported ? [factory.createModifier(ts.SyntaxKind.ExportKeyword)] : []
  if (ts.isInterfaceDeclaration(node)) {
    return factory.updateInterfaceDeclaration(node, modifiers, node.name, node.typeParameters, node.heritageClauses, node.members)
  }
  return factory.updateTypeAliasDeclaration(node, modifiers, node.name, node.typeParameters, node.type)
}

/** The names of the profile types a preset exports (its `*Profile` and the types an app may name with it). */
export function exportedTypeNames(directory, name) {
  const path = join(directory, `${name}.d.ts`)
  const file = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true)
  return file.statements
    .filter((s) => ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s))
    .filter((s) => ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) && !CONFIG_NAME.test(s.name.text))
    .map((s) => ({ name: s.name.text, generic: (s.typeParameters?.length ?? 0) > 0 }))
}

/** The TypeScript source of one preset's profile types, or undefined when it declares none. */
export function profileSource(directory, name) {
  const path = join(directory, `${name}.d.ts`)
  const file = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true)
  const local = new Map()
  const roots = []
  const imports = []
  for (const statement of file.statements) {
    if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
      local.set(statement.name.text, statement)
      const isExported = ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      if (isExported && !CONFIG_NAME.test(statement.name.text)) roots.push(statement)
    } else if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const from = statement.moduleSpecifier.text.replace(/\.js$/, "").replace(/^\.\//, "")
      const named = statement.importClause?.namedBindings
      if (!named || !ts.isNamedImports(named) || NOT_PRESETS.has(from) || from.includes("/")) continue
      const names = named.elements.map((e) => e.name.text).filter((n) => !CONFIG_NAME.test(n))
      if (names.length > 0) imports.push(`import type { ${names.join(", ")} } from "./${from}.js"`)
    }
  }
  // the preset's own signature may name a profile type Auth.js does not export (Figma's): export it here
  const signature = file.statements.find((s) => ts.isFunctionDeclaration(s) && s.name !== undefined)
  const shown = new Set()
  const collect = (node) => {
    if (ts.isTypeReferenceNode(node)) {
      const target = local.get(node.typeName.getText(file))
      if (target && !CONFIG_NAME.test(target.name.text)) shown.add(target)
    }
    ts.forEachChild(node, collect)
  }
  if (signature) collect(signature)
  for (const target of shown) if (!roots.includes(target)) roots.push(target)
  // the exported profile types, and the file's own types they refer to (in file order)
  const wanted = new Set(roots)
  const follow = (node) => {
    if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node)) {
      const target = local.get(node.getChildAt(0).getText(file))
      if (target && !wanted.has(target)) {
        wanted.add(target)
        follow(target)
      }
    }
    ts.forEachChild(node, follow)
  }
  for (const root of roots) follow(root)
  const declarations = file.statements.filter((statement) => wanted.has(statement))
  if (declarations.length === 0) return undefined
  const printer = ts.createPrinter({ removeComments: true })
  const { transformed } = ts.transform(declarations, [anyToUnknown])
  const body = transformed.map((node) => {
    const text = printer.printNode(
      ts.EmitHint.Unspecified,
      exported(
        node,
        ts.factory,
        [...shown].some((s) => s.name.text === node.name.text),
      ),
      file,
    )
    // every public export carries a doc comment (tests/api-docs.test.ts)
    const doc = `/** \`${node.name.text}\` of the ${name} provider's profile, with the fields Auth.js' preset declares. */`
    return text.startsWith("export ") ? `${doc}\n${text}` : text
  })
  const header = [
    `// Generated by scripts/provider-profiles.mjs from @auth/core's "${name}" preset: do not edit.`,
    `// The profile types of authchart/providers/${name}, assignable both ways with Auth.js' own.`,
  ]
  return `${[...header, ...imports, "", body.join("\n\n")].join("\n")}\n`
}

/** `source` as Biome formats the file at `path` (relative to `root`). */
export function formatted(root, path, source) {
  const biome = join(root, "node_modules", "@biomejs", "biome", "bin", "biome")
  const run = spawnSync(process.execPath, [biome, "format", `--stdin-file-path=${path}`], { cwd: root, input: source, encoding: "utf8" })
  if (run.status !== 0) throw new Error(`biome format ${path}: ${run.stderr}`)
  return run.stdout
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), "../..")
  const directory = authjsProvidersDirectory(root)
  const out = join(root, "src/providers/profiles")
  mkdirSync(out, { recursive: true })
  let written = 0
  for (const name of presetNames(directory)) {
    const source = profileSource(directory, name)
    if (source === undefined) continue
    writeFileSync(join(out, `${name}.ts`), formatted(root, `src/providers/profiles/${name}.ts`, source))
    written += 1
  }
  console.log(`src/providers/profiles: ${written} files`)
}
