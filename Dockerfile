# robowatch's image: the daemon (`robowatch start`) by default; any command otherwise,
# e.g. `docker compose run --rm robowatch check`.

# Node 22, the current LTS line (Node 20's support ended in April 2026): the suite passes
# on both, and a check costs about the same CPU on either (docs/performance.md, nineteenth
# round).
# Build: compile TypeScript, then keep only the runtime dependencies.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No dependency needs an install script (npm 11 refuses them unless approved).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# Compiled file by file (scripts/transpile.ts), then bundled with its dependencies
# (scripts/bundle.ts); the types are checked first, as the build itself does not.
COPY scripts/transpile.ts scripts/bundle.ts ./scripts/
# The build ends by migrating the embedded database new data directories start from.
COPY migrations ./migrations
RUN npx tsc -p tsconfig.build.json --noEmit && npm run build && npm prune --omit=dev --ignore-scripts

# Run: Node, the compiled code, its dependencies, the migrations; as the unprivileged `node` user.
FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
COPY config ./config
# The AI crawler registry robowatch ships (read at run time).
COPY registry ./registry
# dataDir: the heartbeat for the health check, and the embedded database when
# DATABASE_URL is unset. Owned by `node` so that a volume mounted here is writable.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
# Healthy while the daemon writes its heartbeat (every 15 s at most).
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
  CMD ["node", "dist/main.js", "health", "--max-age", "120"]
# The web UI and API (web.listen in the configuration; config/compose.yaml: 0.0.0.0:8080).
EXPOSE 8080
ENTRYPOINT ["node", "dist/main.js"]
CMD ["start"]
