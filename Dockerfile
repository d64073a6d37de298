# syntax=docker/dockerfile:1
# bookmaker: the build stage compiles the TypeScript (npm run build → dist/); the runtime stage carries only
# production dependencies (no tsx, no TypeScript) and the compiled JavaScript, and runs as a non-root user.
# test/docker/image-commands.test.ts runs these stages' commands in a temporary folder the same way.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY strategies ./strategies
RUN npm run build

FROM node:20-bookworm-slim AS runtime
# Heap per command (MB of V8 old space), applied by bin/bookmaker.js: the quoting bot stays under 200 MB
# resident quoting 50 markets (test/bench/BENCHMARKS.md, soak-memory) while import and backtest get the room
# a whole data set needs. No global NODE_OPTIONS cap: an explicit --max-old-space-size there still wins.
ENV NODE_ENV=production \
    BOOKMAKER_LOG_LEVEL=info \
    BOOKMAKER_METRICS_PORT=9464 \
    BOOKMAKER_METRICS_HOST=0.0.0.0 \
    BOOKMAKER_HEAP_LIMITS="run=128 sim=256 record=256 chaos=512 import=2048 backtest=2048 default=256"
WORKDIR /app
RUN groupadd --system --gid 10001 bookmaker && useradd --system --uid 10001 --gid bookmaker --home /app bookmaker
COPY package.json package-lock.json ./
# --omit=optional drops TypeScript, which the lock file carries only as an optional peer of viem.
# --ignore-scripts: the one native module that needs its install script, better-sqlite3 (the ledger),
# comes built from the build stage (a prebuilt binary fetched there, or compiled); secp256k1 and keccak
# load their shipped prebuilds at run time.
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/node_modules/better-sqlite3/build ./node_modules/better-sqlite3/build
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY config ./config
USER bookmaker
# Metrics, /healthz and /readyz: bound to 0.0.0.0 inside the container (env above) so the orchestrator can scrape.
EXPOSE 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["node", "bin/healthcheck.js"]
# The ledger (books, kill-switch latch) must outlive the container: mount a volume writable by uid 10001 and
# point ledger.path or BOOKMAKER_LEDGER_PATH at a file on it (config/live.yaml's default folder is read-only).
# Keys come from the environment (BOOKMAKER_PRIVATE_KEY, BOOKMAKER_API_KEY) or a mounted key file
# (--key-file /run/secrets/...: owner-only, or root-owned and group-readable 0440/0640), never the image.
ENTRYPOINT ["node", "bin/bookmaker.js"]
CMD ["run", "-c", "config/live.yaml"]
