// The child of child-bundle.test.ts: what the sources find from a bundle's
// folder (files beside the package, the native SQLite driver through
// `require`), printed as one JSON line for the parent to compare with its own.
import { toolcapVersion } from '../../src/model/version.js';
import { defaultVocabulary, vocabularyUrl } from '../../src/query/vocabulary.js';
import { runnerPath } from '../../src/runtime/providers/python-runner.js';
import { availableSqliteDrivers, openSqlite } from '../../src/store/sqlite-driver.js';

const drivers = availableSqliteDrivers();
for (const driver of drivers) openSqlite(':memory:', { driver }).close();
const vocabulary = defaultVocabulary();
process.stdout.write(
  `${JSON.stringify({ version: toolcapVersion(), vocabularyUrl: vocabularyUrl().href, vocabularyWarning: vocabulary.warning ?? null, runner: runnerPath(), drivers })}\n`,
);
