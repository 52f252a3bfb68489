// bin/toolcap.js over the sources, for tests that run the CLI as its own process (vite-node runs this file).
import { run } from '../../src/cli/program.js';

process.exitCode = await run(process.argv.slice(2));
