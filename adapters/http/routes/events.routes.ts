import { EVENT_CATALOGUE } from '../../../core/events/catalogue.js';
import type { ListEvents } from '../../../core/events/list-events.use-case.js';
import { route, type Route } from '../route.js';
import { schema } from '../schema-type.js';

const publicTypes = [
  ...new Set(
    Object.values(EVENT_CATALOGUE)
      .map((i) => i.public)
      .filter((n): n is string => n !== null),
  ),
].sort();

const catalogueText = Object.values(EVENT_CATALOGUE)
  .filter((i) => i.public)
  .map(
    (i) =>
      `- \`${i.public}\` (${i.scope}): ${i.describe.en} data: ${
        Object.entries(i.data)
          .map(([k, v]) => `${k} (${v})`)
          .join(', ') || '—'
      }`,
  )
  .join('\n');

export const eventSchema = schema({
  type: 'object',
  required: ['id', 'type', 'created_at', 'environment', 'data'],
  properties: {
    id: { type: 'string', description: 'Also the webhook-id header of its deliveries (deduplicate on it).' },
    type: { type: 'string', enum: publicTypes },
    created_at: { type: 'string', format: 'date-time' },
    environment: { type: 'string', enum: ['live', 'test'] },
    domain: { type: 'string', description: 'For domain events: the domain it is about.' },
    data: { type: 'object', additionalProperties: true, description: 'Shape by type: see the event catalogue.' },
  },
});

/** The replayable event log (/v1/events). */
export interface EventsUseCases {
  /** `newestFirst` is the console's feed (newest at the top). */
  readonly listEvents: Pick<ListEvents, 'execute' | 'newestFirst'>;
}

export const eventRoutes = (uc: EventsUseCases): Route[] => [
  route({
    id: 'listEvents',
    method: 'GET',
    path: '/v1/events',
    tag: 'Events',
    writes: false,
    summary: 'The replayable event log, oldest first from a cursor (kept 30 days)',
    description:
      'Any key. Domain events only for domains the key may read (any read right of that domain); account-wide events only with billing.read (webhook.* also with webhook.manage). `next_cursor` is where to continue; poll with it for new events.\n\nEvent catalogue:\n' +
      catalogueText,
    access: { kind: 'key', anyKey: true },
    query: {
      type: 'object',
      additionalProperties: false,
      properties: {
        after: { type: 'string', maxLength: 20, description: 'A next_cursor from an earlier page; omitted: from the oldest kept event.' },
        types: { type: 'string', maxLength: 2000, description: 'Comma-separated public event types.' },
        domain: { type: 'string', maxLength: 253 },
        limit: { type: 'integer', minimum: 1, maximum: 200, description: 'Default 50.' },
      },
    },
    responses: {
      200: {
        description: 'A page of events',
        schema: {
          type: 'object',
          required: ['data', 'next_cursor'],
          properties: {
            data: { type: 'array', items: eventSchema },
            next_cursor: { type: ['string', 'null'] },
            has_more: { type: 'boolean' },
          },
        },
      },
    },
    errors: ['cursor_invalid', 'event_type_unknown'],
    handle: async (i) => ({
      status: 200,
      body: await uc.listEvents.execute(i.key, {
        after: i.query.after,
        types: i.query.types,
        domain: i.query.domain,
        limit: i.query.limit,
      }),
    }),
  }),
];
