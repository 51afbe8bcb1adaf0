import type { Command } from 'commander';
import { FatalError, UsageError } from '../lib/errors.js';
import { digestTargets, prepareDigests } from '../monitor/delivery/digests.js';
import { Presentation, deliverQueued } from '../compose.js';
import { wireDigests } from '../compose-delivery.js';
import type { CliContext } from './context.js';
import { readConfig } from './context.js';
import { openStoreOrDaemon } from './daemon-client.js';
import { describeDelivery } from './deliver.js';
import { write } from './io.js';
import { runningConfig, withReads } from './reads.js';
import { digestPeriod } from '../monitor/reads.js';
import type { DigestText } from '../monitor/reads.js';
import { parseDuration } from '../policy/wording/format.js';

interface DigestOptions {
  config?: string;
  since: string;
  print?: boolean;
  send?: boolean;
  to?: string;
}

/** "7d" → milliseconds. */
function parseSince(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined)
    throw new UsageError(`--since must be a duration such as 7d, 24h or 2w, not "${value}"`);
  return ms;
}

/** `robowatch digest`: the digest of a period, printed or sent. */
export function registerDigest(program: Command, context: CliContext): void {
  program
    .command('digest')
    .summary('print or send the digest of a period')
    .description(
      'Builds, for each recipient of alerts (email addresses and webhooks), the digest of the\n' +
        "sites whose alerts they receive: what needs attention, each site's changes and their\n" +
        "causes, fetch health, and the AI crawlers' standing. --send records it and sends it;\n" +
        'a period already sent to a recipient is not sent again.',
    )
    .option('--since <duration>', 'the period: the last 7d, 24h, 2w, …', '7d')
    .option('--print', 'print the digests (the default)')
    .option('--send', 'record the digests and send them now')
    .option('--to <email>', 'only the digest of this recipient')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .action(async (options: DigestOptions) => {
      if (options.print && options.send)
        throw new UsageError('--print and --send exclude each other');
      const since = parseSince(options.since);
      const config = await readConfig(context, options.config);
      // Every recipient the daemon sends to: the file's, and those added in the web UI (a
      // daemon holding the embedded database answers for its own).
      const opened = await openStoreOrDaemon(context, config);
      let running = config;
      if (!('daemon' in opened)) {
        try {
          running = await runningConfig(context, config, opened.handle.db, {
            readOnly: options.send !== true,
          });
        } catch (error) {
          await opened.handle.close();
          throw error;
        }
        if (!options.send) await opened.handle.close();
      }
      const recipients = new Set(digestTargets(running).map((t) => t.recipient));
      if (recipients.size === 0) {
        if (options.send && !('daemon' in opened)) await opened.handle.close();
        throw new UsageError(
          `${config.file} sends alerts to nobody (notify.email.to, notify.webhooks, a site's notify, or the default recipients added in the web UI)`,
        );
      }
      if (options.to !== undefined && !recipients.has(options.to)) {
        if (options.send && !('daemon' in opened)) await opened.handle.close();
        throw new UsageError(`--to ${options.to} receives no site's alerts in ${config.file}`);
      }
      const printed = (digests: readonly DigestText[]) =>
        write(
          context.io.stdout,
          digests.map((d) => `To: ${d.recipient}\nSubject: ${d.subject}\n\n${d.text}\n`).join('\n'),
        );
      if (!options.send) {
        await printed(
          await withReads(context, config, (reads) => reads.previewDigests(since, options.to)),
        );
        return;
      }
      if ('daemon' in opened)
        throw new FatalError(
          `the daemon (process ${opened.daemon.info.pid}) holds the embedded database and sends the digest itself on schedule.digest; stop it to send one now`,
        );
      try {
        // The period runs to now and starts on the hour: sending twice within an hour names
        // the same period (recorded once), and nothing seen up to now is left out.
        const digests = await prepareDigests(
          wireDigests(context, opened.handle.db, new Presentation(running)),
          running,
          digestPeriod(context.now(), since),
          { record: true, ...(options.to === undefined ? {} : { recipient: options.to }) },
        );
        const delivery = describeDelivery(await deliverQueued(context, config, opened.handle));
        const lines = digests.map((d) =>
          d.id === null
            ? `${d.recipient}: already sent for this period`
            : `${d.recipient}: queued (digest ${d.id})`,
        );
        await write(context.io.stdout, [...lines, delivery.sent].join('\n') + '\n');
        if (delivery.failed !== undefined)
          await write(context.io.stderr, `robowatch: ${delivery.failed}\n`);
      } finally {
        await opened.handle.close();
      }
    });
}
