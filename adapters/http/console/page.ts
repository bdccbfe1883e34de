import type { HumanContext } from '../../../core/kernel/person.js';
import type { Html } from './html.js';
import type { View } from './layout.js';

/** A console request as a page sees it: the view (language, environment), the person, the parsed input. */
export interface ConsoleRequest {
  readonly view: View;
  readonly human: HumanContext | null;
  readonly params: string[];
  readonly query: Record<string, string | undefined>;
  readonly form: Record<string, string | string[]>;
  readonly ip: string;
  /** The one-time view left by the POST that redirected here (an issued key, a new secret…), if any: it
   * reaches exactly one GET, within 5 minutes, of the same session; a reload finds it gone. */
  readonly once: OnceView | null;
}
/** What a POST hands over to the page it redirects to, once (POST-redirect-GET without a second write). */
export interface OnceView {
  readonly kind: string;
  readonly data: Readonly<Record<string, string>>;
}
export interface CookieOut {
  name: string;
  value: string;
  expires?: Date;
  maxAge?: number;
}
export type PageOut =
  | { title: string; body: Html; status?: number; bare?: boolean; cookies?: CookieOut[]; headers?: Record<string, string> }
  | { redirect: string; cookies?: CookieOut[]; once?: OnceView }
  /** A download (a zone file, a certificate chain): sent as is, not inside the page layout. */
  | { file: { body: string; type: string; name: string } };
/** One console page: how it is matched, whether it needs a signed-in person, and what it answers. */
export interface ConsolePage {
  readonly method: 'GET' | 'POST';
  readonly pattern: RegExp;
  /** Needs a signed-in person. */
  readonly auth: boolean;
  /** This form's body limit when it is not the console's 64 KiB (a pasted zone file may be as large as the
   * API's import takes, DNS_IMPORT_MAX_BYTES). */
  readonly maxFormBytes?: number;
  handle(req: ConsoleRequest): Promise<PageOut>;
}
