import Database from 'better-sqlite3';

/** Prepared statements kept per reader. */
const MAX_STATEMENTS = 500;

/**
 * A second, read-only SQLite connection for hot reads outside transactions, with prepared statements
 * kept (knex prepares every statement anew, which costs more than the query itself). In WAL mode a
 * reader sees the last committed state and never blocks the writer, so these reads are exactly as
 * correct as reads through knex; inside a transaction the repositories use the transaction instead.
 */
export class SqliteReader {
  private db: Database.Database | null = null;
  private readonly statements = new Map<string, Database.Statement>();

  /** Opened on first use: the file exists only once the writer has created it. */
  constructor(private readonly file: string) {}

  all<T>(sql: string, params: readonly unknown[]): T[] {
    let st = this.statements.get(sql);
    if (st) {
      // Least recently used goes first: a hot statement stays however many varying ones come after it.
      this.statements.delete(sql);
      this.statements.set(sql, st);
    } else {
      if (!this.db) {
        this.db = new Database(this.file, { readonly: true, fileMustExist: true });
        this.db.pragma('busy_timeout = 5000');
      }
      st = this.db.prepare(sql);
      // Statements whose text varies (a domain list's, by the key's labels and names) stay bounded.
      if (this.statements.size >= MAX_STATEMENTS) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(sql, st);
    }
    return st.all(...params) as T[];
  }

  close(): void {
    this.db?.close();
    this.db = null;
    this.statements.clear();
  }
}
