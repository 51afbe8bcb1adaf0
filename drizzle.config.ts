import { defineConfig } from 'drizzle-kit';

/** `npm run db:generate` writes a new migration to migrations/ from src/store/schema.ts. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/store/schema.ts',
  out: './migrations',
});
