import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { FrameReader, frame } from '../../adapters/registrar/epp/client.js';
import { attr, buildEpp, child, children, NS, parseEpp, text, type XmlNode } from '../../adapters/registrar/epp/xml.js';
import { reqArgs } from './openssl-req.js';

/**
 * A small, honest EPP registry for tests (RFC 5730–5734): real TLS with client certificates, RFC 5734
 * framing, a greeting, login/logout, and state kept in memory so create → info → renew round-trips.
 * Every frame in both directions is validated with `xmllint --schema` against the IETF schemas kept in
 * test/fixtures/epp. Scripted failures: a dropped connection after a command is applied, any result
 * code for the next command of a verb (2400 …), a session limit (2502), a slow greeting.
 *
 * Magic names, like the sandbox: a first label starting `taken-` is held by another registrar until
 * TAKEN_UNTIL; one starting `fail-` is available but create/renew answer 2400.
 */
export const TAKEN_UNTIL = '2031-03-14';
const SCHEMA = resolve(import.meta.dirname, '../fixtures/epp/all.xsd');

export interface EppCerts {
  readonly dir: string;
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** Paths (for EPP_CERT/EPP_KEY/EPP_CA). */
  readonly files: { readonly ca: string; readonly clientCert: string; readonly clientKey: string };
  cleanup(): void;
}

/** A test CA, a server certificate for 127.0.0.1/localhost and a client certificate, made with openssl. */
export const makeEppCerts = (): EppCerts => {
  const dir = mkdtempSync(join(tmpdir(), 'epp-certs-'));
  const o = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  o(...reqArgs({ x509: true, key: 'ec:P-256', keyout: 'ca.key', out: 'ca.pem', days: 2, subj: '/CN=Domivka EPP test CA' }));
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const who of ['server', 'client']) {
    o(...reqArgs({ key: 'ec:P-256', keyout: `${who}.key`, out: `${who}.csr`, subj: `/CN=epp-${who}` }));
    o(
      'x509',
      '-req',
      '-in',
      `${who}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${who}.pem`,
      '-days',
      '2',
      '-extfile',
      `${who}.ext`,
    );
  }
  const r = (f: string) => readFileSync(join(dir, f), 'utf8');
  return {
    dir,
    ca: r('ca.pem'),
    serverCert: r('server.pem'),
    serverKey: r('server.key'),
    clientCert: r('client.pem'),
    clientKey: r('client.key'),
    files: { ca: join(dir, 'ca.pem'), clientCert: join(dir, 'client.pem'), clientKey: join(dir, 'client.key') },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
};

export interface EppServerOptions {
  readonly certs: EppCerts;
  readonly clientId?: string;
  readonly password?: string;
  /** Offer host objects (host-1.0 in the greeting); without, domains carry host attributes. */
  readonly hostObjects?: boolean;
  /** Announce the RFC 8748 fee extension and answer fee:check. */
  readonly fee?: boolean;
  /** Fee per year in UAH by TLD (fee extension answers). */
  readonly fees?: Readonly<Record<string, string>>;
  readonly greetingDelayMs?: number;
  /** Logged-in sessions allowed at once; one more login gets 2502 and the connection closes. */
  readonly sessionLimit?: number;
  /** Validate every frame with xmllint (default true). */
  readonly validate?: boolean;
  /** Offer the DNSSEC extension (RFC 5910 secDNS-1.1) in the greeting (default true). */
  readonly secDns?: boolean;
}

interface DomainRow {
  name: string;
  roid: string;
  clID: string;
  status: string[];
  ns: string[];
  registrant: string | null;
  crDate: string;
  exDate: string;
  authInfo: string;
  transfer: { status: string; reID: string; reDate: string; acID: string; acDate: string; years?: number } | null;
}
interface ContactRow {
  id: string;
  roid: string;
  name: string;
  email: string;
  cc: string;
  clID: string;
  crDate: string;
}
interface Message {
  id: string;
  qDate: string;
  msg: string;
  resData?: XmlNode;
}

const MESSAGES: Record<number, string> = {
  1000: 'Command completed successfully',
  1001: 'Command completed successfully; action pending',
  1300: 'Command completed successfully; no messages',
  1301: 'Command completed successfully; ack to dequeue',
  1500: 'Command completed successfully; ending session',
  2002: 'Command use error',
  2102: 'Unimplemented option',
  2005: 'Parameter value syntax error',
  2106: 'Object is not eligible for transfer',
  2200: 'Authentication error',
  2201: 'Authorization error',
  2202: 'Invalid authorization information',
  2300: 'Object pending transfer',
  2301: 'Object not pending transfer',
  2302: 'Object exists',
  2303: 'Object does not exist',
  2304: 'Object status prohibits operation',
  2306: 'Parameter value policy error',
  2308: 'Data management policy violation',
  2400: 'Command failed',
  2502: 'Session limit exceeded; server closing connection',
};

const validatingBuilder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: true });
const keepPrefixes = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, trimValues: true });

const addYears = (iso: string, years: number): string => {
  const d = new Date(`${iso.slice(0, 10)}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
};
const isTaken = (n: string) => n.split('.')[0]!.startsWith('taken-');
const isFail = (n: string) => n.split('.')[0]!.startsWith('fail-');
/** Names another registrar holds that may be transferred to us with TRANSFER_AUTH (`transfer-locked-`: locked). */
const isTransferable = (n: string) => n.split('.')[0]!.startsWith('transfer-');
export const TRANSFER_AUTH = 'epp-auth-ok';
/** The losing registrar's answer period (RFC 5731 leaves it to policy). */
const TRANSFER_PERIOD_MS = 5 * 86_400_000;

export class EppTestServer {
  readonly clientId: string;
  readonly password: string;
  private server: Server | null = null;
  port = 0;
  readonly domains = new Map<string, DomainRow>();
  readonly hosts = new Set<string>();
  readonly contacts = new Map<string, ContactRow>();
  /** clTRID → the answer it got (successful writes only: a failure does not poison the id). */
  private readonly transactions = new Map<string, string>();
  readonly messages: Message[] = [];
  /** DS records per domain name (RFC 5910 dsData; digest upper-case hex): what the parent would publish. */
  readonly ds = new Map<string, Array<{ keyTag: number; alg: number; digestType: number; digest: string }>>();
  private readonly sockets = new Set<TLSSocket>();
  private loggedIn = 0;
  private seq = 0;
  /** Every command received (verb + clTRID), for assertions. */
  readonly received: Array<{ verb: string; object: string; clTRID: string }> = [];
  /** Raw frames received (for the log-secrecy check). */
  readonly frames: string[] = [];
  readonly schemaErrors: string[] = [];
  private readonly validations: Array<Promise<void>> = [];
  validatedFrames = 0;
  private script: Array<{ verb: string; action: 'drop' | number }> = [];
  /** Connections accepted (a new one per reconnect). */
  connections = 0;

  constructor(private readonly opts: EppServerOptions) {
    this.clientId = opts.clientId ?? 'domivka';
    this.password = opts.password ?? 'epp-test-secret-1';
  }

  /** The next command of this verb (check, create, info, renew, update, transfer, poll, login) is applied and then the connection dropped without an answer. */
  dropAfterNext(verb: string): void {
    this.script.push({ verb, action: 'drop' });
  }

  /** The next command of this verb answers with this result code (2400, 2306 …) and changes nothing. */
  failNext(verb: string, code: number): void {
    this.script.push({ verb, action: code });
  }

  /** Queues a registry message: another registrar asked for a transfer of a name we hold. */
  requestTransfer(domain: string, by = 'otherreg'): void {
    const d = this.domains.get(domain);
    if (!d) throw new Error(`no ${domain}`);
    const now = new Date();
    d.transfer = {
      status: 'pending',
      reID: by,
      reDate: now.toISOString(),
      acID: d.clID,
      acDate: new Date(now.getTime() + 5 * 86400_000).toISOString(),
    };
    if (!d.status.includes('pendingTransfer')) d.status = [...d.status.filter((s) => s !== 'ok'), 'pendingTransfer'];
    this.queue('Transfer requested.', {
      'domain:trnData': {
        '@_xmlns:domain': NS.domain,
        'domain:name': domain,
        'domain:trStatus': 'pending',
        'domain:reID': by,
        'domain:reDate': d.transfer.reDate,
        'domain:acID': d.transfer.acID,
        'domain:acDate': d.transfer.acDate,
      },
    });
  }

  /** The registry deletes a name (policy, court order …) and tells the sponsor through the queue. */
  deleteByRegistry(domain: string): void {
    if (!this.domains.delete(domain)) throw new Error(`no ${domain}`);
    this.queue(`Domain ${domain} deleted by the registry.`, {
      'domain:panData': {
        '@_xmlns:domain': NS.domain,
        'domain:name': { '#text': domain, '@_paResult': '1' },
        'domain:paTRID': { svTRID: this.svTRID() },
        'domain:paDate': new Date().toISOString(),
      },
    });
  }

  private queue(msg: string, resData?: XmlNode): void {
    this.messages.push({ id: String(++this.seq), qDate: new Date().toISOString(), msg, ...(resData ? { resData } : {}) });
  }

  async start(): Promise<this> {
    this.server = createServer(
      {
        cert: this.opts.certs.serverCert,
        key: this.opts.certs.serverKey,
        ca: this.opts.certs.ca,
        requestCert: true,
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
      },
      (socket) => this.accept(socket),
    );
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server!.address() as AddressInfo).port;
    return this;
  }

  /** Waits for every pending schema validation. */
  async validated(): Promise<void> {
    await Promise.all(this.validations.splice(0));
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    await this.validated();
  }

  /** Closes every open connection (as a registry restart would). */
  dropAll(): void {
    for (const s of this.sockets) s.destroy();
  }

  private validate(xml: string, direction: string): void {
    if (this.opts.validate === false) return;
    let doc = xml;
    if (xml.includes(NS.fee)) {
      // RFC 8748's fee-1.0 schema is not among the IETF schemas kept here: validate the frame without its fee extension.
      const tree = keepPrefixes.parse(xml) as XmlNode;
      const epp = tree.epp as XmlNode;
      for (const k of ['command', 'response']) if (epp[k] && typeof epp[k] === 'object') delete (epp[k] as XmlNode).extension;
      delete tree['?xml'];
      doc = validatingBuilder.build(tree) as string;
    }
    this.validations.push(
      new Promise<void>((done) => {
        const p = execFile('xmllint', ['--noout', '--schema', SCHEMA, '-'], (err, _out, stderr) => {
          this.validatedFrames++;
          if (err) this.schemaErrors.push(`${direction}: ${stderr.trim()}\n${xml}`);
          done();
        });
        p.stdin!.end(doc);
      }),
    );
  }

  private send(socket: TLSSocket, xml: string): void {
    this.validate(xml, 'server → client');
    socket.write(frame(xml));
  }

  private greeting(): string {
    const objURI = [NS.domain, NS.contact, ...(this.opts.hostObjects !== false ? [NS.host] : [])];
    const extURI = [NS.rgp, ...(this.opts.fee ? [NS.fee] : []), ...(this.opts.secDns !== false ? [NS.secDNS] : [])];
    return buildEpp({
      greeting: {
        svID: 'Domivka EPP test registry',
        svDate: new Date().toISOString(),
        svcMenu: { version: '1.0', lang: ['en', 'uk'], objURI, svcExtension: { extURI } },
        dcp: {
          access: { all: '' },
          statement: { purpose: { admin: '', prov: '' }, recipient: { ours: '', public: '' }, retention: { stated: '' } },
        },
      },
    } as XmlNode);
  }

  private accept(socket: TLSSocket): void {
    this.connections++;
    this.sockets.add(socket);
    socket.setNoDelay(true);
    let session: { loggedIn: boolean } = { loggedIn: false };
    const reader = new FrameReader();
    socket.on('close', () => {
      this.sockets.delete(socket);
      if (session.loggedIn) this.loggedIn--;
      session = { loggedIn: false };
    });
    socket.on('error', () => socket.destroy());
    const sendGreeting = () => {
      if (!socket.destroyed) this.send(socket, this.greeting());
    };
    if (this.opts.greetingDelayMs) setTimeout(sendGreeting, this.opts.greetingDelayMs);
    else sendGreeting();
    socket.on('data', (chunk: Buffer) => {
      let frames: string[];
      try {
        frames = reader.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const f of frames) this.handle(socket, session, f);
    });
  }

  private svTRID(): string {
    return `SV-${++this.seq}`;
  }

  private respond(
    code: number,
    clTRID: string | null,
    extra: { resData?: XmlNode; extension?: XmlNode; msgQ?: XmlNode; reason?: string } = {},
  ): string {
    return buildEpp({
      response: {
        result: {
          '@_code': code,
          msg: MESSAGES[code] ?? 'Command failed',
          ...(extra.reason ? { extValue: { value: { text: extra.reason }, reason: extra.reason } } : {}),
        },
        ...(extra.msgQ ? { msgQ: extra.msgQ } : {}),
        ...(extra.resData ? { resData: extra.resData } : {}),
        ...(extra.extension ? { extension: extra.extension } : {}),
        trID: { ...(clTRID ? { clTRID } : {}), svTRID: this.svTRID() },
      },
    } as XmlNode);
  }

  private handle(socket: TLSSocket, session: { loggedIn: boolean }, xml: string): void {
    this.frames.push(xml);
    this.validate(xml, 'client → server');
    let epp: XmlNode;
    try {
      epp = parseEpp(xml);
    } catch {
      this.send(socket, this.respond(2001 as number, null));
      return;
    }
    if ('hello' in epp) {
      this.send(socket, this.greeting());
      return;
    }
    const cmd = child(epp, 'command');
    if (!cmd) {
      this.send(socket, this.respond(2002, null));
      return;
    }
    const clTRID = text(child(cmd, 'clTRID')) || null;
    const verb = Object.keys(cmd).find((k) => !['extension', 'clTRID'].includes(k))!;
    const body = child(cmd, verb) ?? {};
    const objectKey = Object.keys(body).find((k) => !k.startsWith('@_')) ?? '';
    const xmlns = verb === 'login' || verb === 'logout' || verb === 'poll' ? '' : this.objectNamespace(xml);
    const short = Object.entries(NS).find(([, uri]) => uri === xmlns)?.[0];
    this.received.push({ verb, object: short ? `${short}:${objectKey}` : objectKey, clTRID: clTRID ?? '' });

    const scripted = this.script.findIndex((s) => s.verb === verb);
    const step = scripted >= 0 ? this.script.splice(scripted, 1)[0]! : null;
    if (step && typeof step.action === 'number') {
      this.send(socket, this.respond(step.action, clTRID));
      if (step.action === 2502) socket.end();
      return;
    }

    if (verb === 'login') {
      if (session.loggedIn) return this.send(socket, this.respond(2002, clTRID));
      if (text(child(body, 'clID')) !== this.clientId || text(child(body, 'pw')) !== this.password) {
        return this.send(socket, this.respond(2200, clTRID));
      }
      if (this.opts.sessionLimit !== undefined && this.loggedIn >= this.opts.sessionLimit) {
        this.send(socket, this.respond(2502, clTRID));
        socket.end();
        return;
      }
      session.loggedIn = true;
      this.loggedIn++;
      return this.send(socket, this.respond(1000, clTRID));
    }
    if (!session.loggedIn) return this.send(socket, this.respond(2002, clTRID));
    if (verb === 'logout') {
      this.send(socket, this.respond(1500, clTRID));
      socket.end();
      return;
    }

    // A repeated write (same clTRID) gets the first answer again and changes nothing.
    const write = ['create', 'renew', 'update', 'delete'].includes(verb) || (verb === 'transfer' && attr(body, 'op') !== 'query');
    const replay = write && clTRID ? this.transactions.get(clTRID) : undefined;
    const answer = replay ?? this.execute(verb, body, clTRID, cmd, xmlns);
    if (write && clTRID && !replay && /<result code="1\d\d\d"/.test(answer)) this.transactions.set(clTRID, answer);
    if (step?.action === 'drop') {
      socket.destroy();
      return;
    }
    this.send(socket, answer);
  }

  /**
   * The period of a pending transfer ends: the registry approves it (serverApproved: the name moves to the
   * requester, with the years asked for added) or the losing registrar rejects it (clientRejected). Both
   * sides hear of it through the queue; ours is the one queue this server keeps, so a message goes in when
   * we are either side of the transfer.
   */
  finishTransfer(domain: string, outcome: 'serverApproved' | 'clientRejected' = 'serverApproved'): void {
    const d = this.domains.get(domain);
    if (!d?.transfer || d.transfer.status !== 'pending') throw new Error(`no pending transfer of ${domain}`);
    const t = d.transfer;
    t.status = outcome;
    const rest = d.status.filter((x) => x !== 'pendingTransfer');
    d.status = rest.length ? rest : ['ok'];
    if (outcome === 'serverApproved') {
      d.clID = t.reID;
      d.exDate = `${addYears(d.exDate, t.years ?? 1)}${d.exDate.slice(10)}`;
      d.authInfo = `moved-${++this.seq}`;
    }
    if (t.reID === this.clientId || t.acID === this.clientId) {
      this.queue(outcome === 'serverApproved' ? 'Transfer approved.' : 'Transfer rejected.', {
        'domain:trnData': {
          '@_xmlns:domain': NS.domain,
          'domain:name': domain,
          'domain:trStatus': t.status,
          'domain:reID': t.reID,
          'domain:reDate': t.reDate,
          'domain:acID': t.acID,
          'domain:acDate': t.acDate,
          ...(outcome === 'serverApproved' ? { 'domain:exDate': d.exDate } : {}),
        },
      });
    }
  }

  private trnData(d: DomainRow): XmlNode {
    return {
      'domain:trnData': {
        '@_xmlns:domain': NS.domain,
        'domain:name': d.name,
        'domain:trStatus': d.transfer!.status,
        'domain:reID': d.transfer!.reID,
        'domain:reDate': d.transfer!.reDate,
        'domain:acID': d.transfer!.acID,
        'domain:acDate': d.transfer!.acDate,
        ...(d.transfer!.status.endsWith('Approved') ? { 'domain:exDate': d.exDate } : {}),
      },
    };
  }

  /** Queues the current state of a name's transfer as a message to us (registries tell the requester too). */
  announceTransfer(domain: string): void {
    const d = this.domains.get(domain);
    if (!d?.transfer) throw new Error(`no transfer of ${domain}`);
    this.queue(`Transfer ${d.transfer.status}.`, this.trnData(d));
  }

  private ensureTaken(name: string): void {
    if (isTransferable(name) && !this.domains.has(name)) {
      this.domains.set(name, {
        name,
        roid: `D${++this.seq}-DMKT`,
        clID: 'otherreg',
        status: name.split('.')[0]!.startsWith('transfer-locked-') ? ['clientTransferProhibited'] : ['ok'],
        ns: ['ns1.elsewhere.example'],
        registrant: null,
        crDate: '2021-03-14T10:00:00.0Z',
        exDate: `${TAKEN_UNTIL}T10:00:00.0Z`,
        authInfo: TRANSFER_AUTH,
        transfer: null,
      });
    }
    if (isTaken(name) && !this.domains.has(name)) {
      this.domains.set(name, {
        name,
        roid: `D${++this.seq}-DMKT`,
        clID: 'otherreg',
        status: ['clientTransferProhibited'],
        ns: ['ns1.elsewhere.example'],
        registrant: null,
        crDate: '2021-03-14T10:00:00.0Z',
        exDate: `${TAKEN_UNTIL}T10:00:00.0Z`,
        authInfo: 'other-secret',
        transfer: null,
      });
    }
  }

  /** The namespace URI of the command's object element (`<host:check xmlns:host="…">` → host-1.0). */
  private objectNamespace(xml: string): string {
    const epp = (keepPrefixes.parse(xml) as XmlNode).epp as XmlNode;
    const cmd = epp.command as XmlNode;
    const verbKey = Object.keys(cmd).find((k) => !['extension', 'clTRID'].includes(k))!;
    const body = cmd[verbKey];
    if (!body || typeof body !== 'object') return '';
    const objKey = Object.keys(body).find((k) => !k.startsWith('@_'));
    if (!objKey) return '';
    const prefix = objKey.includes(':') ? objKey.slice(0, objKey.indexOf(':')) : '';
    const node = (body as XmlNode)[objKey] as XmlNode;
    return String((node && typeof node === 'object' ? node[prefix ? `@_xmlns:${prefix}` : '@_xmlns'] : '') ?? '');
  }

  private execute(verb: string, body: XmlNode, clTRID: string | null, cmd: XmlNode, xmlns: string): string {
    const [obj] = Object.keys(body).filter((k) => !k.startsWith('@_'));
    const o = child(body, obj ?? '') ?? {};
    const kind = obj ?? '';
    const now = new Date().toISOString();
    if (verb === 'check' && kind === 'check') {
      if (xmlns === NS.host) {
        const names = children(o, 'name').map(text);
        return this.respond(1000, clTRID, {
          resData: {
            'host:chkData': {
              '@_xmlns:host': NS.host,
              'host:cd': names.map((n) => ({ 'host:name': { '#text': n, '@_avail': this.hosts.has(n) ? '0' : '1' } })),
            },
          },
        });
      }
      if (xmlns === NS.contact) {
        const ids = children(o, 'id').map(text);
        return this.respond(1000, clTRID, {
          resData: {
            'contact:chkData': {
              '@_xmlns:contact': NS.contact,
              'contact:cd': ids.map((i) => ({ 'contact:id': { '#text': i, '@_avail': this.contacts.has(i) ? '0' : '1' } })),
            },
          },
        });
      }
      const names = children(o, 'name').map(text);
      names.forEach((n) => this.ensureTaken(n));
      const feeCheck = child(child(cmd, 'extension'), 'check');
      const extension = this.opts.fee && feeCheck ? this.feeAnswer(names, feeCheck) : undefined;
      return this.respond(1000, clTRID, {
        resData: {
          'domain:chkData': {
            '@_xmlns:domain': NS.domain,
            'domain:cd': names.map((n) => ({
              'domain:name': { '#text': n, '@_avail': this.domains.has(n) ? '0' : '1' },
              ...(this.domains.has(n) ? { 'domain:reason': 'In use' } : {}),
            })),
          },
        },
        ...(extension ? { extension } : {}),
      });
    }
    if (verb === 'info' && kind === 'info') {
      if (xmlns === NS.contact) {
        const c = this.contacts.get(text(child(o, 'id')));
        if (!c) return this.respond(2303, clTRID);
        return this.respond(1000, clTRID, {
          resData: {
            'contact:infData': {
              '@_xmlns:contact': NS.contact,
              'contact:id': c.id,
              'contact:roid': c.roid,
              'contact:status': { '@_s': 'ok' },
              'contact:postalInfo': {
                '@_type': 'int',
                'contact:name': c.name,
                'contact:addr': { 'contact:city': 'Kyiv', 'contact:cc': c.cc },
              },
              'contact:email': c.email,
              'contact:clID': c.clID,
              'contact:crID': c.clID,
              'contact:crDate': c.crDate,
            },
          },
        });
      }
      const name = text(child(o, 'name'));
      this.ensureTaken(name);
      const d = this.domains.get(name);
      if (!d) return this.respond(2303, clTRID);
      const mine = d.clID === this.clientId;
      const hostObjects = this.opts.hostObjects !== false;
      return this.respond(1000, clTRID, {
        resData: {
          'domain:infData': {
            '@_xmlns:domain': NS.domain,
            'domain:name': d.name,
            'domain:roid': d.roid,
            'domain:status': d.status.map((s) => ({ '@_s': s })),
            ...(d.registrant ? { 'domain:registrant': d.registrant } : {}),
            ...(d.ns.length
              ? {
                  'domain:ns': hostObjects
                    ? { 'domain:hostObj': d.ns }
                    : { 'domain:hostAttr': d.ns.map((h) => ({ 'domain:hostName': h })) },
                }
              : {}),
            'domain:clID': d.clID,
            'domain:crID': d.clID,
            'domain:crDate': d.crDate,
            'domain:exDate': d.exDate,
            ...(mine ? { 'domain:authInfo': { 'domain:pw': d.authInfo } } : {}),
          },
        },
        ...this.secDnsInfo(d.name),
      });
    }
    if (verb === 'create' && kind === 'create') {
      if (xmlns === NS.host) {
        const name = text(child(o, 'name'));
        if (this.hosts.has(name)) return this.respond(2302, clTRID);
        this.hosts.add(name);
        return this.respond(1000, clTRID, {
          resData: { 'host:creData': { '@_xmlns:host': NS.host, 'host:name': name, 'host:crDate': now } },
        });
      }
      if (xmlns === NS.contact) {
        const id = text(child(o, 'id'));
        if (this.contacts.has(id)) return this.respond(2302, clTRID);
        const p = children(o, 'postalInfo')[0];
        this.contacts.set(id, {
          id,
          roid: `C${++this.seq}-DMKT`,
          name: text(child(p, 'name')),
          email: text(child(o, 'email')),
          cc: text(child(child(p, 'addr'), 'cc')),
          clID: this.clientId,
          crDate: now,
        });
        return this.respond(1000, clTRID, {
          resData: { 'contact:creData': { '@_xmlns:contact': NS.contact, 'contact:id': id, 'contact:crDate': now } },
        });
      }
      const name = text(child(o, 'name'));
      this.ensureTaken(name);
      if (this.domains.has(name)) return this.respond(2302, clTRID);
      if (isFail(name)) return this.respond(2400, clTRID);
      const years = Number(text(child(o, 'period')) || '1');
      if (years < 1 || years > 10) return this.respond(2306, clTRID, { reason: 'period out of range' });
      const ns = this.nsOf(child(o, 'ns'));
      if (this.opts.hostObjects !== false && ns.some((h) => !this.hosts.has(h)))
        return this.respond(2303, clTRID, { reason: 'unknown host object' });
      const exDate = `${addYears(now, years)}${now.slice(10)}`;
      this.domains.set(name, {
        name,
        roid: `D${++this.seq}-DMKT`,
        clID: this.clientId,
        status: ['ok'],
        ns,
        registrant: text(child(o, 'registrant')) || null,
        crDate: now,
        exDate,
        authInfo: text(child(child(o, 'authInfo'), 'pw')),
        transfer: null,
      });
      return this.respond(1000, clTRID, {
        resData: { 'domain:creData': { '@_xmlns:domain': NS.domain, 'domain:name': name, 'domain:crDate': now, 'domain:exDate': exDate } },
      });
    }
    if (verb === 'renew' && kind === 'renew') {
      const name = text(child(o, 'name'));
      this.ensureTaken(name);
      if (isFail(name)) return this.respond(2400, clTRID);
      const d = this.domains.get(name);
      if (!d) return this.respond(2303, clTRID);
      if (d.clID !== this.clientId) return this.respond(2201, clTRID);
      if (text(child(o, 'curExpDate')) !== d.exDate.slice(0, 10)) return this.respond(2306, clTRID, { reason: 'curExpDate mismatch' });
      const years = Number(text(child(o, 'period')) || '1');
      d.exDate = `${addYears(d.exDate, years)}${d.exDate.slice(10)}`;
      return this.respond(1000, clTRID, {
        resData: { 'domain:renData': { '@_xmlns:domain': NS.domain, 'domain:name': name, 'domain:exDate': d.exDate } },
      });
    }
    const secDns = verb === 'update' && kind === 'update' ? child(child(cmd, 'extension'), 'update') : undefined;
    if (secDns) return this.secDnsUpdate(o, secDns, clTRID);
    if (verb === 'update' && kind === 'update') {
      const name = text(child(o, 'name'));
      this.ensureTaken(name);
      const d = this.domains.get(name);
      if (!d) return this.respond(2303, clTRID);
      if (d.clID !== this.clientId) return this.respond(2201, clTRID);
      if (d.status.some((s) => s.startsWith('server') && s.endsWith('UpdateProhibited'))) return this.respond(2304, clTRID);
      const add = child(o, 'add');
      const rem = child(o, 'rem');
      const chg = child(o, 'chg');
      const addNs = this.nsOf(child(add, 'ns'));
      if (this.opts.hostObjects !== false && addNs.some((h) => !this.hosts.has(h)))
        return this.respond(2303, clTRID, { reason: 'unknown host object' });
      const remNs = this.nsOf(child(rem, 'ns'));
      if (addNs.some((h) => d.ns.includes(h))) return this.respond(2302, clTRID);
      const addStatus = children(add, 'status').map((s) => attr(s, 's')!);
      const remStatus = children(rem, 'status').map((s) => attr(s, 's')!);
      if (addStatus.some((s) => d.status.includes(s))) return this.respond(2302, clTRID);
      const registrant = chg ? text(child(chg, 'registrant')) : '';
      if (registrant && !this.contacts.has(registrant)) return this.respond(2303, clTRID, { reason: 'unknown contact' });
      d.ns = [...d.ns.filter((h) => !remNs.includes(h)), ...addNs];
      const others = [...d.status.filter((s) => s !== 'ok' && !remStatus.includes(s)), ...addStatus];
      d.status = others.length ? others : ['ok'];
      if (registrant) d.registrant = registrant;
      return this.respond(1000, clTRID);
    }
    if (verb === 'transfer') {
      // RFC 5731 §3.2.4: request (gaining side, with authInfo), query (either side), cancel (the requester),
      // reject/approve (the sponsor, while pending).
      const op = attr(body, 'op') ?? 'query';
      const name = text(child(o, 'name'));
      this.ensureTaken(name);
      const d = this.domains.get(name);
      if (!d) return this.respond(2303, clTRID);
      if (op === 'request') {
        if (d.clID === this.clientId) return this.respond(2106, clTRID);
        if (d.transfer?.status === 'pending') return this.respond(2300, clTRID);
        if (d.status.some((x) => x === 'clientTransferProhibited' || x === 'serverTransferProhibited')) return this.respond(2304, clTRID);
        if (text(child(child(o, 'authInfo'), 'pw')) !== d.authInfo) return this.respond(2202, clTRID);
        const at = new Date();
        d.transfer = {
          status: 'pending',
          reID: this.clientId,
          reDate: at.toISOString(),
          acID: d.clID,
          acDate: new Date(at.getTime() + TRANSFER_PERIOD_MS).toISOString(),
          years: Number(text(child(o, 'period')) || '1'),
        };
        d.status = [...d.status.filter((x) => x !== 'ok'), 'pendingTransfer'];
        return this.respond(1001, clTRID, { resData: this.trnData(d) });
      }
      if (!d.transfer) return this.respond(2301, clTRID);
      if (op === 'query') return this.respond(1000, clTRID, { resData: this.trnData(d) });
      if (d.transfer.status !== 'pending') return this.respond(2301, clTRID);
      if (op === 'cancel' && d.transfer.reID !== this.clientId) return this.respond(2201, clTRID);
      if ((op === 'reject' || op === 'approve') && d.clID !== this.clientId) return this.respond(2201, clTRID);
      if (op === 'approve') {
        this.finishTransfer(name, 'serverApproved');
        d.transfer.status = 'clientApproved';
        return this.respond(1000, clTRID, { resData: this.trnData(d) });
      }
      d.transfer.status = op === 'cancel' ? 'clientCancelled' : 'clientRejected';
      const rest = d.status.filter((x) => x !== 'pendingTransfer');
      d.status = rest.length ? rest : ['ok'];
      return this.respond(1000, clTRID, { resData: this.trnData(d) });
    }
    if (verb === 'poll') {
      const op = attr(body, 'op');
      if (op === 'ack') {
        const id = attr(body, 'msgID');
        const i = this.messages.findIndex((m) => m.id === id);
        if (i < 0) return this.respond(2303, clTRID);
        this.messages.splice(i, 1);
        return this.respond(
          1000,
          clTRID,
          this.messages.length ? { msgQ: { '@_count': this.messages.length, '@_id': this.messages[0]!.id } } : {},
        );
      }
      const m = this.messages[0];
      if (!m) return this.respond(1300, clTRID);
      return this.respond(1301, clTRID, {
        msgQ: { '@_count': this.messages.length, '@_id': m.id, qDate: m.qDate, msg: m.msg },
        ...(m.resData ? { resData: m.resData } : {}),
      });
    }
    return this.respond(2000 as number, clTRID);
  }

  /**
   * DNSSEC (RFC 5910 §3.2.5, dsData interface): `<secDNS:rem>` then `<secDNS:add>` of DS records, in a
   * `<domain:update>` that carries nothing else here. Refusals: 2303 unknown name, 2201 not ours, 2304
   * serverUpdateProhibited, 2308 a `nods-` name (a registry policy without DNSSEC), 2306 a digest whose
   * length does not fit its type, 2102 a `<domain:update>` that also changes other things, or keyData.
   */
  private secDnsUpdate(o: XmlNode, update: XmlNode, clTRID: string | null): string {
    const name = text(child(o, 'name'));
    this.ensureTaken(name);
    const d = this.domains.get(name);
    if (!d) return this.respond(2303, clTRID);
    if (d.clID !== this.clientId) return this.respond(2201, clTRID);
    if (d.status.some((s) => s.startsWith('server') && s.endsWith('UpdateProhibited'))) return this.respond(2304, clTRID);
    if (child(o, 'add') || child(o, 'rem') || child(o, 'chg')) return this.respond(2102, clTRID, { reason: 'secDNS with other changes' });
    const rows = (n: XmlNode | undefined) =>
      children(n, 'dsData').map((x) => ({
        keyTag: Number(text(child(x, 'keyTag'))),
        alg: Number(text(child(x, 'alg'))),
        digestType: Number(text(child(x, 'digestType'))),
        digest: text(child(x, 'digest')).toUpperCase(),
      }));
    const add = rows(child(update, 'add'));
    const rem = rows(child(update, 'rem'));
    if (child(child(update, 'add'), 'keyData') || child(child(update, 'rem'), 'keyData'))
      return this.respond(2102, clTRID, { reason: 'keyData interface not supported' });
    if ((add.length || rem.length) && name.split('.')[0]!.startsWith('nods-'))
      return this.respond(2308, clTRID, { reason: 'DNSSEC not supported for this name' });
    const hexLength: Record<number, number> = { 1: 40, 2: 64, 4: 96 };
    if (add.some((r) => hexLength[r.digestType] !== r.digest.length))
      return this.respond(2306, clTRID, { reason: 'digest length does not fit the digest type' });
    const same = (a: (typeof add)[number], b: (typeof add)[number]) =>
      a.keyTag === b.keyTag && a.alg === b.alg && a.digestType === b.digestType && a.digest === b.digest;
    const removeAll = text(child(child(update, 'rem'), 'all')) === 'true';
    const kept = removeAll ? [] : (this.ds.get(name) ?? []).filter((h) => !rem.some((r) => same(h, r)));
    const next = [...kept, ...add.filter((a) => !kept.some((h) => same(h, a)))];
    if (next.length) this.ds.set(name, next);
    else this.ds.delete(name);
    return this.respond(1000, clTRID);
  }

  /** domain:info's `<secDNS:infData>` when the name has DS records (RFC 5910 §3.1.2). */
  private secDnsInfo(name: string): { extension?: XmlNode } {
    const held = this.ds.get(name);
    if (!held?.length || this.opts.secDns === false) return {};
    return {
      extension: {
        'secDNS:infData': {
          '@_xmlns:secDNS': NS.secDNS,
          'secDNS:dsData': held.map((r) => ({
            'secDNS:keyTag': r.keyTag,
            'secDNS:alg': r.alg,
            'secDNS:digestType': r.digestType,
            'secDNS:digest': r.digest,
          })),
        },
      },
    };
  }

  private nsOf(ns: XmlNode | undefined): string[] {
    return [...children(ns, 'hostObj').map(text), ...children(ns, 'hostAttr').map((h) => text(child(h, 'hostName')))].map((h) =>
      h.toLowerCase(),
    );
  }

  private feeAnswer(names: string[], feeCheck: XmlNode): XmlNode {
    const command = children(feeCheck, 'command')[0];
    const action = attr(command, 'name') ?? 'create';
    const years = Number(text(child(command, 'period')) || '1');
    return {
      'fee:chkData': {
        '@_xmlns:fee': NS.fee,
        'fee:currency': 'UAH',
        'fee:cd': names.map((n) => {
          const tld = Object.keys(this.opts.fees ?? {})
            .filter((t) => n.endsWith(`.${t}`))
            .sort((a, b) => b.length - a.length)[0];
          const yearly = tld ? Number(this.opts.fees![tld]) : null;
          return {
            '@_avail': yearly === null ? '0' : '1',
            'fee:objID': n,
            'fee:command': {
              '@_name': action,
              'fee:period': { '#text': years, '@_unit': 'y' },
              ...(yearly === null ? {} : { 'fee:fee': (yearly * years).toFixed(2) }),
            },
            ...(yearly === null ? { 'fee:reason': 'no price' } : {}),
          };
        }),
      },
    };
  }
}
