// knex's own dialect classes, which knex ships without types: adapters/sql/connection.ts extends them.
/* eslint-disable @typescript-eslint/no-explicit-any */

declare module 'knex/lib/dialects/better-sqlite3/index.js' {
  const Client: new (...args: any[]) => any;
  export default Client;
}

declare module 'knex/lib/dialects/sqlite3/execution/sqlite-transaction.js' {
  const Transaction: new (...args: any[]) => any;
  export default Transaction;
}
