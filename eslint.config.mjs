// The project's JavaScript linter: eslint (npm, pinned in package.json) with its recommended
// rules, over the project's own scripts. scripts/test runs it before pytest:
//
//   node_modules/.bin/eslint widgets src tests eslint.config.mjs
import js from "@eslint/js";
import globals from "globals";

export default [
  // Not the project's code: installed packages, built sites, caches, the virtual environment.
  { ignores: ["node_modules/", ".venv/", "site/", "build/", "dist/", ".cache/", ".bench/", "**/.zensical-*/", "**/*.egg-info/"] },
  js.configs.recommended,
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  // The pages' scripts: ES modules in the browser (the duty widget, the offline worker's
  // registration).
  {
    files: ["widgets/**/*.js", "widgets/**/*.mjs"],
    ignores: ["widgets/duty/worker.mjs"],
    languageOptions: { sourceType: "module", globals: globals.browser },
  },
  // The theme's scripts, which replace its inline ones: classic scripts (document.currentScript).
  { files: ["widgets/theme/*.js"], languageOptions: { sourceType: "script" } },
  // The duty widget's module worker: no document, no window.
  {
    files: ["widgets/duty/worker.mjs"],
    languageOptions: { sourceType: "module", globals: globals.worker },
  },
  // Node's: the build's scripts (Workbox, the memory snapshot, esbuild), the tests' runners, this file.
  {
    files: ["src/**/*.mjs", "tests/**/*.mjs", "eslint.config.mjs"],
    languageOptions: { sourceType: "module", globals: globals.node },
  },
  // An expression the browser tests evaluate in the page (Playwright's page.evaluate).
  {
    files: ["tests/**/*.js"],
    languageOptions: { sourceType: "script", globals: globals.browser },
  },
];
