/** `npm run build`'s last step: the migrated embedded database new data directories start from. */
import { SEED_FILE } from './store/db.js';
import { writeSeed } from './store/db-pglite.js';

await writeSeed();
process.stdout.write(`wrote ${SEED_FILE}\n`);
