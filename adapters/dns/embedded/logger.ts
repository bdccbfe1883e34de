/** The logging this adapter needs; a pino logger fits. Nothing is logged per query. */
export interface NameserverLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
