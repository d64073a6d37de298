/**
 * deploy/kubernetes/bookmaker.yaml, parsed and checked against the image (Dockerfile), the CLI and the
 * key-file rule: the documented example must run as written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Registry } from 'prom-client';
import { parseArgs } from '../../src/cli/args.ts';
import runCommand from '../../src/cli/commands/run.ts';
import { keyFileModeProblem } from '../../src/config/secrets.ts';
import { startMetricsEndpoint } from '../../src/metrics/metrics-server.ts';
import { envOf, execForm, heapLimits, readDockerfile } from './dockerfile.ts';
import { freePort } from '../support/net.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed manifest, checked field by field
type Obj = Record<string, any>;

const docs = parseAllDocuments(readFileSync('deploy/kubernetes/bookmaker.yaml', 'utf8'));
const runtime = readDockerfile('Dockerfile').at(-1)!;
const imageEnv = envOf(runtime);

test('the manifest parses: one Deployment of one replica, recreated (never two bots on one wallet)', () => {
  assert.equal(docs.length, 2);
  for (const doc of docs) assert.deepEqual(doc.errors, []);
  const d = docs[0]!.toJS() as Obj;
  assert.equal(d.apiVersion, 'apps/v1');
  assert.equal(d.kind, 'Deployment');
  assert.equal(d.spec.replicas, 1);
  assert.equal(d.spec.strategy.type, 'Recreate');
  assert.deepEqual(d.spec.selector.matchLabels, d.spec.template.metadata.labels);
  assert.ok(d.spec.template.spec.terminationGracePeriodSeconds >= 30, 'time to cancel every order on SIGTERM');
  assert.doesNotMatch(readFileSync('deploy/kubernetes/bookmaker.yaml', 'utf8'), /(?:0x)?[0-9a-fA-F]{64}/, 'no key material in the manifest');
});

test('the container runs `bookmaker run` with flags the CLI accepts, and reads its key from the mounted Secret under the key-file rule', () => {
  const pod = (docs[0]!.toJS() as Obj).spec.template.spec;
  const c = pod.containers[0];
  assert.equal(execForm(runtime, 'ENTRYPOINT').join(' '), 'node bin/bookmaker.js', 'args go to the bookmaker entry point');
  assert.equal(c.args[0], 'run');
  const parsed = parseArgs(c.args.slice(1), runCommand.options);
  assert.equal(parsed.options.config, 'config/live.yaml');
  const keyFile = parsed.options['key-file'] as string;
  // the key file is an item of the Secret volume, mounted read-only
  const mount = c.volumeMounts.find((m: Obj) => keyFile.startsWith(m.mountPath + '/'));
  assert.ok(mount, `a volume is mounted over ${keyFile}`);
  assert.equal(mount.readOnly, true);
  const vol = pod.volumes.find((v: Obj) => v.name === mount.name);
  assert.ok(vol.secret, 'from a Secret');
  assert.ok(vol.secret.items.some((i: Obj) => i.path === posix.relative(mount.mountPath, keyFile)));
  // Kubernetes mounts Secret files owned by root with group fsGroup and mode defaultMode
  const mode = vol.secret.items.find((i: Obj) => i.mode !== undefined)?.mode ?? vol.secret.defaultMode;
  assert.equal(mode, 0o440);
  assert.equal(keyFileModeProblem(mode, 0), null, 'root-owned 0440 is accepted');
  assert.notEqual(keyFileModeProblem(0o644, 0), null, "Kubernetes' default 0644 would be refused, hence defaultMode");
  // the bot reads it through its group: the pod's fsGroup, and the image's user
  const sc = pod.securityContext;
  assert.equal(sc.runAsNonRoot, true);
  const user = /useradd[^&]*--uid (\d+)/.exec(runtime.steps.map((s) => s.args).join('\n'));
  const group = /groupadd[^&]*--gid (\d+)/.exec(runtime.steps.map((s) => s.args).join('\n'));
  assert.ok(user && group, 'the image pins its uid and gid');
  assert.equal(sc.runAsUser, Number(user[1]));
  assert.equal(sc.fsGroup, Number(group[1]));
  // the API key comes from the Secret as an environment variable, never a literal
  const api = c.env.find((e: Obj) => e.name === 'BOOKMAKER_API_KEY');
  assert.ok(api.valueFrom.secretKeyRef && api.value === undefined);
});

test('probes and scraping use the metrics port the image serves, and the memory limit leaves room for the heap cap of `run`', async () => {
  const pod = (docs[0]!.toJS() as Obj).spec.template;
  const c = pod.spec.containers[0];
  const port = Number(imageEnv.BOOKMAKER_METRICS_PORT);
  assert.ok(port > 0);
  const named = c.ports.find((p: Obj) => p.name === 'metrics');
  assert.equal(named.containerPort, port);
  assert.equal(Number(c.env.find((e: Obj) => e.name === 'BOOKMAKER_METRICS_PORT').value), port);
  assert.equal(c.env.find((e: Obj) => e.name === 'BOOKMAKER_METRICS_HOST').value, '0.0.0.0', 'reachable by the kubelet');
  assert.ok(runtime.steps.some((s) => s.op === 'EXPOSE' && s.args === String(port)));
  assert.equal(pod.metadata.annotations['prometheus.io/port'], String(port));
  assert.deepEqual([c.livenessProbe.httpGet.path, c.livenessProbe.httpGet.port], ['/healthz', 'metrics']);
  assert.deepEqual([c.readinessProbe.httpGet.path, c.readinessProbe.httpGet.port], ['/readyz', 'metrics']);
  const mi = /^(\d+)Mi$/.exec(c.resources.limits.memory);
  assert.ok(mi, c.resources.limits.memory);
  const heap = heapLimits(imageEnv.BOOKMAKER_HEAP_LIMITS ?? '').run;
  assert.ok(heap && Number(mi[1]) >= heap + 100, `limit ${mi[1]} Mi vs heap ${heap} MB + ~100 MB of code, buffers and native memory`);
  // the paths exist on the endpoint (answers other than 404)
  const ep = await startMetricsEndpoint({ registry: new Registry(), port: await freePort() });
  assert.ok(ep);
  try {
    for (const path of ['/healthz', '/readyz', pod.metadata.annotations['prometheus.io/path']]) {
      const r = await fetch(ep.url + path);
      await r.arrayBuffer();
      assert.notEqual(r.status, 404, path);
    }
  } finally {
    await ep.close();
  }
});

test('the ledger (books and the kill-switch latch) lives on a persistent volume, so a restarted container keeps its latch', () => {
  const pod = (docs[0]!.toJS() as Obj).spec.template.spec;
  const c = pod.containers[0];
  const path = c.env.find((e: Obj) => e.name === 'BOOKMAKER_LEDGER_PATH')?.value as string | undefined;
  assert.ok(path, 'BOOKMAKER_LEDGER_PATH is set');
  const mount = c.volumeMounts.find((m: Obj) => path!.startsWith(m.mountPath + '/'));
  assert.ok(mount, `a volume is mounted above ${path}`);
  assert.notEqual(mount.readOnly, true, 'writable');
  const vol = pod.volumes.find((v: Obj) => v.name === mount.name);
  assert.ok(vol?.persistentVolumeClaim, 'a PersistentVolumeClaim, not the container filesystem or an emptyDir');
  const pvc = docs[1]!.toJS() as Obj;
  assert.equal(pvc.kind, 'PersistentVolumeClaim');
  assert.equal(pvc.metadata.name, vol.persistentVolumeClaim.claimName);
  assert.deepEqual(pvc.spec.accessModes, ['ReadWriteOnce']);
  assert.equal(pod.securityContext.fsGroup, 10001, 'the volume is writable by the bot through fsGroup');
});
