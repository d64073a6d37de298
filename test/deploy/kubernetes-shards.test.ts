/**
 * deploy/kubernetes/bookmaker-shards.yaml, parsed and checked (kubectl is not available): a
 * StatefulSet whose pod ordinal becomes the shard index through BOOKMAKER_SHARD (expanded here as
 * Kubernetes expands $(VAR) references), one ledger volume per pod, the image's metrics port,
 * probes, the key Secret under the key-file rule, and a headless Service for the pod names.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseArgs } from '../../src/cli/args.ts';
import runCommand from '../../src/cli/commands/run.ts';
import { shardFromEnv } from '../../src/config/env-overrides.ts';
import { keyFileModeProblem } from '../../src/config/secrets.ts';
import { envOf, execForm, readDockerfile } from './dockerfile.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed manifest, checked field by field
type Obj = Record<string, any>;

const FILE = 'deploy/kubernetes/bookmaker-shards.yaml';
const text = readFileSync(FILE, 'utf8');
const docs = parseAllDocuments(text);
const runtime = readDockerfile('Dockerfile').at(-1)!;
const imageEnv = envOf(runtime);
const byKind = (kind: string): Obj => docs.map((d) => d.toJS() as Obj).find((d) => d.kind === kind)!;

/**
 * The container's environment as Kubernetes builds it for the pod of this ordinal: fieldRef to the
 * pod-index label, then `$(NAME)` references to variables defined earlier in the list, in order.
 * Secrets are left out (they are never literals here).
 */
function podEnv(container: Obj, ordinal: number, podName: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of container.env as Obj[]) {
    if (e.valueFrom?.fieldRef) {
      const path = e.valueFrom.fieldRef.fieldPath as string;
      if (path === "metadata.labels['apps.kubernetes.io/pod-index']") env[e.name] = String(ordinal);
      else if (path === 'metadata.name') env[e.name] = podName;
      else assert.fail(`unexpected fieldRef ${path}`);
    } else if (typeof e.value === 'string') env[e.name] = e.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m: string, n: string) => env[n] ?? m);
  }
  return env;
}

test('the shards manifest parses: a headless Service and a StatefulSet of N pods, no key material', () => {
  for (const d of docs) assert.deepEqual(d.errors, []);
  assert.deepEqual(
    docs.map((d) => (d.toJS() as Obj).kind),
    ['Service', 'StatefulSet'],
  );
  const svc = byKind('Service');
  const sts = byKind('StatefulSet');
  assert.equal(sts.apiVersion, 'apps/v1');
  assert.equal(svc.spec.clusterIP, 'None', 'headless');
  assert.equal(sts.spec.serviceName, svc.metadata.name);
  assert.deepEqual(svc.spec.selector, sts.spec.template.metadata.labels);
  assert.deepEqual(sts.spec.selector.matchLabels, sts.spec.template.metadata.labels);
  assert.notDeepEqual(sts.spec.template.metadata.labels, { 'app.kubernetes.io/name': 'bookmaker' }, 'not selected by the single-bot Deployment');
  assert.equal(sts.spec.podManagementPolicy, 'Parallel');
  assert.ok(sts.spec.template.spec.terminationGracePeriodSeconds >= 30, "time to cancel the shard's orders on SIGTERM");
  assert.doesNotMatch(text, /(?:0x)?[0-9a-fA-F]{64}/, 'no key material in the manifest');
});

test('the pod ordinal is the shard index: every pod gets I/N with N = replicas, and an extra pod is refused (exit 2), never a duplicate', () => {
  const sts = byKind('StatefulSet');
  const c = sts.spec.template.spec.containers[0];
  const n = sts.spec.replicas as number;
  assert.ok(n >= 2);
  const seen = new Set<number>();
  for (let i = 0; i < n; i++) {
    const env = podEnv(c, i, `${sts.metadata.name}-${i}`);
    assert.deepEqual(shardFromEnv(env), { index: i, count: n }, `pod ${i}: BOOKMAKER_SHARD=${env.BOOKMAKER_SHARD}`);
    seen.add(i);
  }
  assert.equal(seen.size, n, 'every shard has its pod');
  // `kubectl scale --replicas=N+1` without changing N: the new pod's shard N/N is refused at start-up
  assert.throws(() => shardFromEnv(podEnv(c, n, `${sts.metadata.name}-${n}`)), /BOOKMAKER_SHARD: expected I\/N/);
  // the shard is not also given on the command line (the flag would win over the ordinal)
  const parsed = parseArgs(c.args.slice(1), runCommand.options);
  assert.equal(parsed.options.shard, undefined);
});

test('the container runs `bookmaker run` with flags the CLI accepts and reads its key from the Secret under the key-file rule; the API key is never a literal', () => {
  const pod = byKind('StatefulSet').spec.template.spec;
  const c = pod.containers[0];
  assert.equal(execForm(runtime, 'ENTRYPOINT').join(' '), 'node bin/bookmaker.js');
  assert.equal(c.args[0], 'run');
  const parsed = parseArgs(c.args.slice(1), runCommand.options);
  const keyFile = parsed.options['key-file'] as string;
  const mount = c.volumeMounts.find((m: Obj) => keyFile.startsWith(m.mountPath + '/'));
  assert.ok(mount && mount.readOnly === true);
  const vol = pod.volumes.find((v: Obj) => v.name === mount.name);
  assert.ok(vol.secret.items.some((i: Obj) => i.path === posix.relative(mount.mountPath, keyFile)));
  assert.equal(vol.secret.defaultMode, 0o440);
  assert.equal(keyFileModeProblem(vol.secret.defaultMode, 0), null);
  assert.equal(pod.securityContext.fsGroup, 10001);
  const api = c.env.find((e: Obj) => e.name === 'BOOKMAKER_API_KEY');
  assert.ok(api.valueFrom.secretKeyRef && api.value === undefined);
});

test('one ledger volume per pod (volumeClaimTemplates), mounted where BOOKMAKER_LEDGER_PATH points, writable', () => {
  const sts = byKind('StatefulSet');
  const c = sts.spec.template.spec.containers[0];
  const path = c.env.find((e: Obj) => e.name === 'BOOKMAKER_LEDGER_PATH')?.value as string;
  assert.ok(path);
  const mount = c.volumeMounts.find((m: Obj) => path.startsWith(m.mountPath + '/'));
  assert.ok(mount, `a volume above ${path}`);
  assert.notEqual(mount.readOnly, true);
  // from the claim template, not a shared claim or a pod volume: each ordinal keeps its own books and latch
  assert.equal(
    sts.spec.template.spec.volumes.find((v: Obj) => v.name === mount.name),
    undefined,
    'not a pod-level volume',
  );
  const tpl = sts.spec.volumeClaimTemplates.find((t: Obj) => t.metadata.name === mount.name);
  assert.ok(tpl, 'a volumeClaimTemplate of that name');
  assert.deepEqual(tpl.spec.accessModes, ['ReadWriteOnce']);
  assert.match(tpl.spec.resources.requests.storage, /^\d+(Mi|Gi)$/);
});

test('metrics port, probes and scraping match the image', () => {
  const sts = byKind('StatefulSet');
  const svc = byKind('Service');
  const t = sts.spec.template;
  const c = t.spec.containers[0];
  const port = Number(imageEnv.BOOKMAKER_METRICS_PORT);
  assert.equal(c.ports.find((p: Obj) => p.name === 'metrics').containerPort, port);
  assert.equal(Number(c.env.find((e: Obj) => e.name === 'BOOKMAKER_METRICS_PORT').value), port);
  assert.equal(c.env.find((e: Obj) => e.name === 'BOOKMAKER_METRICS_HOST').value, '0.0.0.0');
  assert.equal(t.metadata.annotations['prometheus.io/port'], String(port));
  assert.equal(t.metadata.annotations['prometheus.io/path'], '/metrics');
  assert.deepEqual([c.livenessProbe.httpGet.path, c.livenessProbe.httpGet.port], ['/healthz', 'metrics']);
  assert.deepEqual([c.readinessProbe.httpGet.path, c.readinessProbe.httpGet.port], ['/readyz', 'metrics']);
  assert.equal(svc.spec.ports[0].targetPort, 'metrics');
  // the same image, resources and limits as the single-bot Deployment
  const single = parseAllDocuments(readFileSync('deploy/kubernetes/bookmaker.yaml', 'utf8'))[0]!.toJS() as Obj;
  const sc = single.spec.template.spec.containers[0];
  assert.equal(c.image, sc.image);
  assert.deepEqual(c.resources, sc.resources);
  assert.deepEqual(c.args, sc.args);
});
