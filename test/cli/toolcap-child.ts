// bin/toolcap.js over the sources, for tests that run the CLI as its own process (bundled by test/helpers/child-bundle.ts, run with node).
import { run } from '../../src/cli/program.js';

process.exitCode = await run(process.argv.slice(2));
