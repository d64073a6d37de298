#!/usr/bin/env node
// Container health check (Dockerfile HEALTHCHECK): GET /healthz on the bot's metrics endpoint.
// Exit 0 when it answers 200 within the timeout, 1 otherwise (the code Docker expects).
// The port is BOOKMAKER_METRICS_PORT (default 9464); the host is 127.0.0.1, since the check runs inside
// the container, where the endpoint listens on 0.0.0.0 (BOOKMAKER_METRICS_HOST) or 127.0.0.1.
// Usage: node bin/healthcheck.js [--url URL] [--timeout-ms MS]
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const port = Number(process.env.BOOKMAKER_METRICS_PORT ?? 9464);
const url = flag('--url') ?? `http://127.0.0.1:${Number.isInteger(port) && port > 0 ? port : 9464}/healthz`;
const timeoutMs = Number(flag('--timeout-ms') ?? 4000);

try {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  await res.arrayBuffer();
  if (res.status !== 200) {
    process.stderr.write(`healthcheck: ${url} answered ${res.status}\n`);
    process.exit(1);
  }
  process.exit(0);
} catch (e) {
  process.stderr.write(`healthcheck: ${url}: ${e?.cause?.code ?? e?.name ?? 'error'}\n`);
  process.exit(1);
}
