// The child of sqlite-driver.test.ts's warning test (bundled by test/helpers/child-bundle.ts, run with node): opens an in-memory
// database with every SQLite driver this Node can run (loading node:sqlite
// where there is one), prints their names, then emits an unrelated
// ExperimentalWarning, which must still be printed.
import { availableSqliteDrivers, openSqlite } from '../../src/store/sqlite-driver.js';

const drivers = availableSqliteDrivers();
for (const driver of drivers) openSqlite(':memory:', { driver }).close();
process.stdout.write(`${drivers.join(' ')}\n`);
process.emitWarning('something else', 'ExperimentalWarning');
