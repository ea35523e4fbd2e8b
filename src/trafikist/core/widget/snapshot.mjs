// Make the duty widget's memory snapshot: Pyodide booted, the model's wheel unpacked and every
// module of it imported, the whole WebAssembly memory saved and gzipped. Run by
// trafikist.core.widget.snapshot at build time, in Node, from the npm package the site serves:
//
//   node snapshot.mjs PYODIDE_DIR WHEEL OUT
//
// The page restores it with loadPyodide({_loadSnapshot}) and skips CPython's start-up and the
// model's imports. `_makeSnapshot` / `_loadSnapshot` are underscore (experimental) options of
// the pinned Pyodide, so the file is checked here by restoring it once; the page also falls back
// to the plain boot if a restore fails. Exits non-zero with one line on stderr on any failure.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const [pyodideDir, wheel, out] = process.argv.slice(2);
const quiet = { stdout: () => {}, stderr: (line) => console.error(line) };

// Every module of the wheel is imported, so a run after the restore compiles nothing. The
// model's `__main__` (its command line) is left out: the page never runs it.
const IMPORT_ALL = `
import gc, importlib, pkgutil, trafikist
for info in pkgutil.walk_packages(trafikist.__path__, "trafikist."):
    if not info.name.endswith(".__main__"):
        importlib.import_module(info.name)
gc.collect()
`;

try {
  const dir = pyodideDir.endsWith("/") ? pyodideDir : `${pyodideDir}/`;
  const { loadPyodide } = await import(pathToFileURL(`${dir}pyodide.mjs`).href);
  const pyodide = await loadPyodide({ indexURL: dir, _makeSnapshot: true, ...quiet });
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  // In Node a Buffer must be wrapped before unpackArchive (see BUILD-MACHINE-NOTES).
  pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel", { extractDir: sitePackages });
  pyodide.runPython(IMPORT_ALL);
  const snapshot = pyodide.makeMemorySnapshot();

  // The check: a fresh Pyodide restored from it has the model imported.
  const restored = await loadPyodide({ indexURL: dir, _loadSnapshot: snapshot, ...quiet });
  const ready = restored.runPython("import sys; 'trafikist.model_view.live' in sys.modules");
  if (ready !== true) throw new Error("the restored snapshot does not hold the model's modules");

  writeFileSync(out, gzipSync(snapshot, { level: 6 }));
} catch (error) {
  console.error(String((error && error.message) || error).trim().split("\n").pop());
  process.exit(1);
}
