import { Recorder } from '../../core/kernel/recorder.js';
import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import type { Config } from '../config.js';
import { TOKENS as T } from '../tokens.js';
import { StandardWebhooksSender } from '../../adapters/net/webhooks/index.js';
import { PublishEvents } from '../../core/webhooks/publish-events.use-case.js';
import { ManageWebhooks } from '../../core/webhooks/manage-webhooks.use-case.js';
import { DeliverWebhooks } from '../../core/webhooks/deliver-webhooks.use-case.js';

/** The webhooks capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const webhooksModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.WebhookSender)
      .toResolvedValue(
        (c: Config) => new StandardWebhooksSender({ allowLoopback: c.webhooks.allowLoopback, timeoutMs: c.webhooks.timeoutMs }),
        [T.Config],
      )
      .inSingletonScope();
    bind(T.PublishEvents)
      .toResolvedValue(
        (st: SqlStore, r, c) =>
          new PublishEvents({ feed: st.eventFeed, webhooks: st.webhooks, domains: st.domains, uow: st.uow, random: r, clock: c }),
        [s, T.Random, T.Clock],
      )
      .inSingletonScope();
    bind(T.ManageWebhooks)
      .toResolvedValue(
        (st: SqlStore, sender: StandardWebhooksSender, b, r, c, rec: Recorder) =>
          new ManageWebhooks({ repo: st.webhooks, sender, box: b, events: rec, uow: st.uow, random: r, clock: c }),
        [s, T.WebhookSender, T.SecretBox, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.DeliverWebhooks)
      .toResolvedValue(
        (st: SqlStore, sender: StandardWebhooksSender, b, r, c, cfg: Config, rec: Recorder) =>
          new DeliverWebhooks({
            repo: st.webhooks,
            feed: st.eventFeed,
            sender,
            box: b,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
            options: { leaseMs: cfg.webhooks.leaseMs },
          }),
        [s, T.WebhookSender, T.SecretBox, T.Random, T.Clock, T.Config, T.Recorder],
      )
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes (and the console) call of this capability. */
export const webhooksUseCases = (c: Container): Pick<UseCases, 'webhooks'> => ({
  webhooks: c.get(T.ManageWebhooks),
});
