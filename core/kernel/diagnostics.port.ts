/**
 * Where the core reports an error it deliberately does not let fail the caller (a publish after
 * commit, a best-effort revocation): the operator sees it in the logs, the user's request goes on.
 * The core never swallows an error silently.
 */
export interface Diagnostics {
  report(err: unknown, context: { readonly what: string } & Readonly<Record<string, unknown>>): void;
}
