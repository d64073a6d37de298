# syntax=docker/dockerfile:1
# bookmaker: build stage installs dependencies (native secp256k1/keccak prebuilds, tsx loader);
# the runtime stage carries only production dependencies and the sources, as a non-root user.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
# better-sqlite3 (the ledger) installs a prebuilt binary when it can fetch one and compiles otherwise:
# the compilers stay in this stage only
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    BOOKMAKER_LOG_LEVEL=info \
    BOOKMAKER_METRICS_PORT=9464 \
    BOOKMAKER_METRICS_HOST=0.0.0.0 \
    NODE_OPTIONS=--max-old-space-size=128 \
    BOOKMAKER_LEDGER_PATH=/var/lib/bookmaker/ledger.sqlite
WORKDIR /app
RUN groupadd --system bookmaker && useradd --system --gid bookmaker --home /app bookmaker \
    && mkdir -p /var/lib/bookmaker && chown bookmaker:bookmaker /var/lib/bookmaker
# The ledger (books, kill-switch latch) must outlive the container: mount a volume here.
VOLUME /var/lib/bookmaker
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY strategies ./strategies
COPY config ./config
USER bookmaker
# Metrics, /healthz and /readyz: bound to 0.0.0.0 inside the container (env above) so the orchestrator can scrape.
EXPOSE 9464
# The old-space cap keeps RSS under 200 MB quoting 50 markets (test/bench/BENCHMARKS.md, soak-memory);
# V8's default lets the heap grow to about twice the live set between major collections.
# Keys come from the environment (BOOKMAKER_PRIVATE_KEY, BOOKMAKER_API_KEY) or a mounted key file, never the image.
ENTRYPOINT ["node", "bin/bookmaker.js"]
CMD ["run", "-c", "config/live.yaml"]
