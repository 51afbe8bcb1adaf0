import type { Transporter } from 'nodemailer';
import type { Channel, Delivery } from '../policy/alerts.js';
import { renderAlertEmail } from './render-alert.js';
import { renderTestEmail } from './render-test.js';
import { renderIncidentEmail } from './render-incident.js';
import type { RenderContext, RenderedEmail } from './render-alert.js';

/** The mail server a message goes through, and its sender. */
export interface MailServer {
  readonly transport: Transporter;
  readonly from: string;
}

export interface EmailChannelOptions {
  /**
   * The mail server to send with now (compose-delivery.ts makes it from notify.email, as
   * the running configuration has it at each send: a reload applies it). Throws when
   * there is none, which fails the attempt: it is retried.
   */
  server(): MailServer;
  /** A recorded digest's subject and parts; undefined if there is no such digest. */
  loadDigest(id: number): Promise<RenderedEmail | undefined>;
  /** Where the web UI is (known once it listens) and the time zone, when an alert is sent. */
  context(): RenderContext;
}

/**
 * Sends alert and digest emails. The delivery's key is the Message-ID, the same on every
 * attempt, so a receiver can recognise a message sent again after a crash.
 */
export function createEmailChannel(options: EmailChannelOptions): Channel {
  return {
    async send(delivery: Delivery): Promise<void> {
      const { payload } = delivery;
      const server = options.server(); // first: without one, nothing is rendered
      let message: RenderedEmail | undefined;
      if (payload.kind === 'alert') message = renderAlertEmail(payload, options.context());
      else if (payload.kind === 'incident')
        message = renderIncidentEmail(payload, options.context());
      else if (payload.kind === 'test') message = renderTestEmail(payload, options.context());
      else {
        message = await options.loadDigest(payload.digestId);
        if (message === undefined)
          throw new Error(`digest ${payload.digestId} is not in the store`);
      }
      await server.transport.sendMail({
        from: server.from,
        to: delivery.destination,
        subject: message.subject,
        text: message.text,
        html: message.html,
        date: delivery.createdAt,
        messageId: `<${delivery.key}@robowatch>`,
        headers: { 'X-Robowatch-Delivery': delivery.key },
      });
    },
  };
}
