#!/usr/bin/env node
// action-validator-many.mjs — action-validator over many workflow files in one process, for
// tests/helpers/wmlint.py.
//
// usage: node action-validator-many.mjs PACKAGE-JSON WORKFLOW...
//
// @action-validator/cli's cli.mjs (tests/external, pinned) takes one file a run: it reads the file
// and hands its text to validateWorkflow of @action-validator/core, the validator itself, printing
// the result when it has errors (validateAction for a file named action.yml or action.yaml, as
// cli.mjs chooses).  Starting node and the validator's WebAssembly is most of a run,
// so this does what cli.mjs does for each WORKFLOW in one process, with the same validator (found
// from PACKAGE-JSON, tests/external/package.json), and prints one JSON object mapping each
// WORKFLOW to its result's errors (an empty list when it is valid).
import fs from "fs";
import { createRequire } from "module";

const [packageJson, ...workflows] = process.argv.slice(2);
const actionValidator = createRequire(packageJson)("@action-validator/core");
const out = {};
for (const path of workflows) {
  const contents = fs.readFileSync(path, "utf8");
  // an action or a workflow, told apart by the file's name as cli.mjs does
  const isAction = path.endsWith("action.yml") || path.endsWith("action.yaml");
  out[path] = (isAction ? actionValidator.validateAction(contents) : actionValidator.validateWorkflow(contents)).errors;
}
process.stdout.write(JSON.stringify(out));
