// Runs the graphql-http package's GraphQL-over-HTTP audit against the URL given as the one
// argument and prints every result as JSON: [{ id, name, status, reason }], where `name`
// begins with MUST, SHOULD or MAY and `status` is "ok", "warn", "notice" or "error".
import { auditServer } from 'graphql-http';

const url = process.argv[2];
if (!url) {
  console.error('usage: node audit.mjs http://host:port/graphql');
  process.exit(2);
}
const results = await auditServer({ url });
const printed = results.map(({ id, name, status, reason }) => ({ id, name, status, reason }));
process.stdout.write(JSON.stringify(printed));
