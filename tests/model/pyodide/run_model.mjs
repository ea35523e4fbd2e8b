// Runs the model under real Pyodide (Node): copies src/trafikist/model into Pyodide's file system,
// installs the command table and runs each scenario given as JSON on stdin ({table, scenarios}),
// and prints the traces as one JSON list.
import { loadPyodide } from "pyodide";
import fs from "node:fs";
import path from "node:path";

const [root] = process.argv.slice(2);
const pyodide = await loadPyodide();
const site = "/lib/python3.14/site-packages/trafikist";

function copy(source, target) {
  pyodide.FS.mkdirTree(target);
  for (const name of fs.readdirSync(source)) {
    if (name === "__pycache__") continue;
    const full = path.join(source, name);
    if (fs.statSync(full).isDirectory()) copy(full, `${target}/${name}`);
    else pyodide.FS.writeFile(`${target}/${name}`, new Uint8Array(fs.readFileSync(full)));
  }
}

pyodide.FS.mkdirTree(site);
pyodide.FS.writeFile(`${site}/__init__.py`, fs.readFileSync(path.join(root, "src/trafikist/__init__.py")));
copy(path.join(root, "src/trafikist/model"), `${site}/model`);
pyodide.globals.set("scenarios_json", fs.readFileSync(0, "utf8"));
const out = pyodide.runPython(`
import json, sys
from trafikist.model import install_command_table, run_scenario
given = json.loads(scenarios_json)
install_command_table(given["table"])
json.dumps({"version": sys.version.split()[0],
            "traces": [json.dumps(run_scenario(s), sort_keys=True) for s in given["scenarios"]]})
`);
process.stdout.write(out);
