import type { ListNotices } from '../../../core/notices/list-notices.use-case.js';
import type { ListKeyNotices } from '../../../core/notices/list-key-notices.use-case.js';
import { route, type Route } from '../route.js';
import { i18n, page, pageQuery } from '../schemas.js';

/** Notices (/v1/notices for keys, /v1/account/notices for the signed-in person). */
export interface NoticesUseCases {
  readonly listKeyNotices: Pick<ListKeyNotices, 'execute'>;
  readonly listNotices: Pick<ListNotices, 'execute'>;
}

/** One notice, as both lists answer it. */
const notice = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    kind: { type: 'string' },
    environment: { type: ['string', 'null'], enum: ['live', 'test', null] },
    domain: { type: ['string', 'null'] },
    message: i18n,
    data: { type: 'object', additionalProperties: true, description: 'Facts of the notice, by kind (ids, dates, reasons).' },
    created_at: { type: 'string' },
  },
} as const;

export const noticeRoutes = (uc: NoticesUseCases): Route[] => [
  route({
    id: 'listNotices',
    method: 'GET',
    path: '/v1/notices',
    tag: 'Notices',
    writes: false,
    summary: 'Notices the key may see: about domains it may read, and billing ones with billing.read',
    access: { kind: 'key', anyKey: true },
    query: pageQuery({}),
    responses: {
      200: {
        description: 'A page of notices, newest first',
        schema: page(notice),
      },
    },
    errors: ['cursor_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.listKeyNotices.execute(i.key, { cursor: i.query.cursor, limit: i.query.limit }) }),
  }),
  route({
    id: 'listAccountNotices',
    method: 'GET',
    path: '/v1/account/notices',
    tag: 'Account (humans)',
    writes: false,
    summary: 'Notices to the signed-in person (e.g. class 2 keys issued), newest first',
    access: { kind: 'human', session: true, console: '/console/notices' },
    query: pageQuery({ environment: { type: 'string', enum: ['live', 'test'] } }),
    responses: {
      200: {
        description: 'A page of notices',
        schema: page(notice),
      },
    },
    errors: ['cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.listNotices.execute(i.human.actor, {
        environment: i.query.environment,
        cursor: i.query.cursor,
        limit: i.query.limit,
      }),
    }),
  }),
];
