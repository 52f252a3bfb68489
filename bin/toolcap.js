#!/usr/bin/env node
// The only place that sets the process exit code. Everything else is in dist/.
import { run } from '../dist/cli/program.js';

process.exitCode = await run(process.argv.slice(2));
