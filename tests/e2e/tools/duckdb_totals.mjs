// Totals of a blkreel-parse CSV as DuckDB computes them, one "key value"
// per line (tests/e2e/test_duckdb.c compares them with --info):
//   node duckdb_totals.mjs NODE_MODULES_DIR FILE.csv
import { createRequire } from 'node:module';
import path from 'node:path';

const [modules, csv] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const quoted = csv.replaceAll("'", "''");
const reader = await con.runAndReadAll(
  `SELECT count(*) AS ios, coalesce(sum(bytes), 0) AS bytes, count(latency_ns) AS completed,
          avg(latency_ns) AS mean_d2c_ns, count(DISTINCT device) AS devices
   FROM read_csv('${quoted}', header = true,
                 columns = {'time_ns': 'UBIGINT', 'device': 'VARCHAR', 'op': 'VARCHAR',
                            'offset': 'UBIGINT', 'bytes': 'UBIGINT', 'latency_ns': 'UBIGINT'})`);
const row = reader.getRowObjectsJson()[0];
for (const [k, v] of Object.entries(row)) console.log(k, v === null ? 'null' : v);
