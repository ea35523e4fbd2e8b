// Make the site's service worker with Workbox's generateSW (npm workbox-build, pinned in
// package-lock.json). Run by trafikist.core.offline, once per Workbox version and configuration:
//
//   node offline.mjs site NODE_MODULES ASSETS_PATH RUN_FILES OUT
//   node offline.mjs preview NODE_MODULES OUT
//
// `site`: the built site's worker. RUN_FILES is the pattern of the Run's big files under
// ASSETS_PATH (trafikist.core.offline.RUN_FILES). Workbox writes all the worker's caching: the
// precache, its routes and its clean-up, and the runtime route of the Run's big files. What
// changes from one build to the next is left as two placeholders, which trafikist.core.offline fills
// in for each build (so a build does not spend a second in Workbox's bundler): the precache
// list, and the build's content hash in the caches' names.
// `preview`: the worker `mkdocs serve` serves, which sends every request to the network and
// keeps nothing; it replaces a worker that a built site served at the same address left, so
// the preview never comes from that site's cache.
// Exits non-zero with one line on stderr on any failure.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [kind, nodeModules, ...rest] = process.argv.slice(2);
const [assetsPath, runFiles, out] = kind === "site" ? rest : ["", "", rest[0]];
// The tokens trafikist.core.offline replaces; each must appear exactly once in the worker.
const MANIFEST_TOKEN = "__TRAFIKIST_PRECACHE_MANIFEST__";
const BUILD_TOKEN = "__trafikist_build__";
const PLACEHOLDER_URL = "__trafikist_precache__";

// The Run's big files: Pyodide's runtime, the memory snapshot, the model's wheel and its lock.
// They are cached on the first Run that fetches them (CacheFirst), never before. A request
// made for a reader whose browser asks to save data is not kept: the page marks the URLs of
// such a Run's scripts with `save-data`, and every request of that Run has one of them as its
// referrer (widgets/duty/worker.mjs). Workbox puts this function's text in the worker as it
// is, so it may only use its arguments and literals.
const assets = (assetsPath || "").replace(/^\/+|\/+$/g, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const runFile = new RegExp(`/${assets}/${runFiles}`);
const isRunFile = new Function(
  "{ url, request, sameOrigin }",
  `return sameOrigin && ${runFile}.test(url.pathname) &&
    !/[?&]save-data(?:[=&]|$)/.test(request.referrer) &&
    !(self.navigator.connection && self.navigator.connection.saveData);`,
);

// Workbox's JSON of the placeholder entry, minified, as the one token trafikist.core.offline fills in.
function withToken(code) {
  const placeholder = new RegExp(
    `\\[\\s*\\{\\s*"?url"?\\s*:\\s*"${PLACEHOLDER_URL}"\\s*,\\s*"?revision"?\\s*:\\s*null\\s*\\}\\s*\\]`,
    "g",
  );
  const found = code.match(placeholder) || [];
  const builds = code.split(BUILD_TOKEN).length - 1;
  if (found.length !== 1 || builds !== 1) {
    throw new Error(
      `Workbox's output has ${found.length} precache placeholder(s) and ${builds} build ` +
        "placeholder(s), not one of each",
    );
  }
  return code.replace(placeholder, MANIFEST_TOKEN);
}

const empty = mkdtempSync(join(tmpdir(), "trafikist-offline-"));
try {
  const require = createRequire(join(nodeModules, "noop.js"));
  const { generateSW } = require("workbox-build");
  const draft = join(empty, "sw.js");
  const common = {
    swDest: draft,
    globDirectory: empty,
    globPatterns: [],
    // A new build takes over at once; the page reloads onto it (widgets/offline/register.js),
    // so a page never mixes two builds.
    skipWaiting: true,
    clientsClaim: true,
    inlineWorkboxRuntime: true,
    mode: "production",
    sourcemap: false,
    disableDevLogs: true,
    // Browsers with module workers, which the duty widget needs anyway.
    babelPresetEnvTargets: ["chrome >= 80", "firefox >= 114", "safari >= 15"],
  };
  const site = {
    additionalManifestEntries: [{ url: PLACEHOLDER_URL, revision: null }],
    // Every cache of a build is named after its hash, and every name holds "-precache-" (the
    // runtime one as `PREFIX-runtime-SCOPE`), so Workbox's cleanupOutdatedCaches, on the new
    // build's activation, deletes each cache of the builds before it: the old precache and the
    // old Run's files alike.
    cacheId: `trafikist-precache-${BUILD_TOKEN}`,
    cleanupOutdatedCaches: true,
    // Shared runs carry their controls in the query (?duty=recover&wire=6): the same page. But
    // not `save-data`: a Save-Data reader's worker (worker.mjs?save-data) must come from the
    // network, whose response keeps that URL, as the worker's own URL and so as the referrer
    // of every request it makes; a precached copy would answer as the precache's URL.
    ignoreURLParametersMatching: [/^(?!save-data$)/],
    directoryIndex: "index.html",
    runtimeCaching: [
      {
        urlPattern: isRunFile,
        handler: "CacheFirst",
        options: { cacheableResponse: { statuses: [200] } },
      },
    ],
  };
  const preview = { runtimeCaching: [{ urlPattern: () => true, handler: "NetworkOnly" }] };
  if (kind !== "site" && kind !== "preview") throw new Error(`unknown kind of worker: ${kind}`);
  const { warnings } = await generateSW({ ...common, ...(kind === "site" ? site : preview) });
  if (warnings.length) throw new Error(warnings.join("; "));
  const code = readFileSync(draft, "utf8");
  writeFileSync(out, kind === "site" ? withToken(code) : code);
} catch (error) {
  console.error(String((error && error.message) || error).trim().split("\n").pop());
  process.exitCode = 1;
} finally {
  rmSync(empty, { recursive: true, force: true });
}
