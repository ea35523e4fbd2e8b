// Bundle and minify the site's own scripts and styles with esbuild (trafikist.core.bundle).
//
//   node bundle.mjs NODE_MODULES < job.json
//
// job.json: {root: the widgets folder, sources: every file of it the build hashes (relative),
// modules, scripts, styles: the files to make (relative), target}. Prints one JSON object:
// {files: {path: text}, bundled: [the sources inside a module, not served on their own]}, or
// {error: {file, line, text}} and exits 1.
//
// - A module is bundled as an ES module under its own name, with every file it imports; an
//   import of another module stays an import (duty.js imports widget.mjs when the reader first
//   moves, widget.mjs starts worker.mjs), as does an import whose URL is made at run time (the
//   worker's `import(urls.pyodide + "pyodide.mjs")`).
// - A script is minified as it is (a classic script keeps its globals).
// - A style is minified on its own; the build joins them into the site's stylesheet.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";

const [nodeModules] = process.argv.slice(2);
const job = JSON.parse(readFileSync(0, "utf8"));
const require = createRequire(join(nodeModules, "noop.js"));
const esbuild = require("esbuild");

const root = resolve(job.root);
const sources = new Set(job.sources);
const modules = new Set(job.modules.map((name) => resolve(root, name)));
const common = { charset: "utf8", minify: true, logLevel: "silent", target: job.target };

// An import of another module is left to the browser: the outputs keep the sources' names and
// folders, so its relative URL still names that module's bundle.
const otherModules = {
  name: "trafikist-modules",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      if (args.kind !== "entry-point" && modules.has(path)) return { path: args.path, external: true };
      return undefined;
    });
  },
};

class Refused extends Error {
  constructor(file, text) {
    super(text);
    this.file = file;
  }
}

async function bundle(name) {
  const result = await esbuild.build({
    ...common,
    absWorkingDir: root,
    entryPoints: [name],
    bundle: true,
    format: "esm",
    write: false,
    outfile: join(root, name),
    metafile: true,
    plugins: [otherModules],
  });
  if (result.outputFiles.length !== 1) {
    throw new Refused(name, "makes more than one file (a script that imports a style?); import scripts only.");
  }
  // The build's cache is keyed by the sources' bytes: a bundle may hold nothing else.
  const inputs = Object.keys(result.metafile.inputs).map((path) => relative(root, resolve(root, path)).replaceAll("\\", "/"));
  for (const input of inputs) {
    if (!sources.has(input)) throw new Refused(name, `bundles ${input}, which is not a script or style of this folder.`);
  }
  return { text: result.outputFiles[0].text, inputs };
}

async function minify(name, loader) {
  const code = readFileSync(join(root, name), "utf8");
  const result = await esbuild.transform(code, { ...common, loader, sourcefile: name });
  return result.code;
}

function failure(error) {
  if (error instanceof Refused) return { file: error.file, line: null, text: error.message };
  const first = (error && error.errors && error.errors[0]) || null;
  if (first) {
    return { file: first.location ? first.location.file : null, line: first.location ? first.location.line : null, text: first.text };
  }
  return { file: null, line: null, text: String((error && error.message) || error).trim().split("\n").pop() };
}

try {
  const files = {};
  const bundled = new Set();
  for (const name of job.modules) {
    const made = await bundle(name);
    files[name] = made.text;
    for (const input of made.inputs) if (input !== name) bundled.add(input);
  }
  for (const name of job.scripts) {
    if (!bundled.has(name)) files[name] = await minify(name, "js");
  }
  for (const name of job.styles) files[name] = await minify(name, "css");
  process.stdout.write(JSON.stringify({ files, bundled: [...bundled].sort() }));
} catch (error) {
  process.stdout.write(JSON.stringify({ error: failure(error) }));
  process.exitCode = 1;
}
