/** `npm run build`'s last step: the migrated embedded database new data directories start from. */
import { SEED_FILE, writeSeed } from './store/db.js';

await writeSeed();
process.stdout.write(`wrote ${SEED_FILE}\n`);
