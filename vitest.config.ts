import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"
import { publicModules } from "./scripts/exports.mjs"
import { ISOLATED } from "./tests/setup/isolated-files.js"

// Tests may import the package by name (`authchart/testing`, as an app does): each public subpath
// resolves to its source file.
const selfReference = publicModules(import.meta.dirname).map(([subpath, module]) => ({
  find: new RegExp(`^authchart${subpath === "." ? "" : subpath.slice(1)}$`),
  replacement: `${import.meta.dirname}/src/${module}.ts`,
}))

/** Export conditions without `development` (see the plugin below). */
const withoutDevelopment = (conditions: readonly string[] | undefined): string[] =>
  (conditions ?? []).filter((c) => c !== "development" && c !== "development|production")

export default defineConfig({
  resolve: { alias: selfReference },
  plugins: [
    {
      // Dependencies as an app's Node resolves them: without the `development` export condition, which
      // vitest adds (to its workers' `--conditions` too) whenever NODE_ENV is not production. xstate's
      // development build throws or warns where its production build answers quietly, and the runtime
      // must be tested against the build users run (tests/dependency-builds.test.ts holds it).
      name: "production-dependencies",
      configResolved(config) {
        for (const resolve of [config.resolve, config.ssr.resolve, ...Object.values(config.environments ?? {}).map((e) => e.resolve)]) {
          if (!resolve) continue
          resolve.conditions = withoutDevelopment(resolve.conditions)
          resolve.externalConditions = withoutDevelopment(resolve.externalConditions)
        }
      },
    },
  ],
  test: {
    projects: [
      // Most files share their worker's module graph (imported once per worker, not once per file):
      // the import phase was a third of the run. Files that lean on a fresh module graph run isolated.
      { extends: true, test: { name: "shared", include: ["tests/**/*.test.ts"], exclude: [...ISOLATED], isolate: false } },
      { extends: true, test: { name: "isolated", include: [...ISOLATED] } },
    ],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // A browser or a child process answers late on a loaded machine: polls wait for the page, not a clock.
    expect: { poll: { timeout: 8_000 } },
    pool: "forks",
    // vitest's default is one worker fewer than the cores: a single worker on CI's 2 cores, which then
    // spends much of the run waiting on Chromium, servers and child processes with the second core idle.
    // A worker per core (at least two) keeps both busy.
    maxWorkers: Math.max(2, availableParallelism()),
    setupFiles: ["tests/setup/loopback-only.ts"],
    globalSetup: ["tests/setup/postgres.ts"],
  },
})
