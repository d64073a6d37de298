/**
 * deploy/kubernetes/sweep-job.yaml parses as an Indexed Job that runs one shard per pod with the
 * bot's image, and each pod's command line, with the completion index substituted as Kubernetes
 * does ($(VAR) from the container env), is a valid `bookmaker backtest --sweep … --shard I/N`
 * whose shards cover the grid, with distinct part files on the results volume and data on the
 * recordings volume.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { parseArgs } from '../../src/cli/args.ts';
import { parseShard } from '../../src/backtest/sweep-shard.ts';
import { loadSweepSpec } from '../../src/backtest/sweep-grid.ts';

interface Container {
  name: string;
  image: string;
  args: string[];
  env: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}

test('the sweep Indexed Job runs every shard of the grid with the bot image', async () => {
  const docs = parseAllDocuments(readFileSync('deploy/kubernetes/sweep-job.yaml', 'utf8'));
  assert.equal(docs.length, 1);
  assert.deepEqual(docs[0]!.errors, []);
  const job = docs[0]!.toJS() as {
    apiVersion: string;
    kind: string;
    spec: {
      completionMode: string;
      completions: number;
      parallelism: number;
      template: { spec: { restartPolicy: string; containers: Container[]; volumes: { name: string }[] } };
    };
  };
  assert.equal(job.apiVersion, 'batch/v1');
  assert.equal(job.kind, 'Job');
  assert.equal(job.spec.completionMode, 'Indexed');
  assert.ok(['Never', 'OnFailure'].includes(job.spec.template.spec.restartPolicy));
  const [c] = job.spec.template.spec.containers;
  assert.ok(c);
  // the same image as the bot: the README's `docker build -t bookmaker .`
  assert.match(readFileSync('README.md', 'utf8'), /docker build -t bookmaker \./);
  assert.match(c.image, /^bookmaker(:[\w.-]+)?$/);
  const env = new Map(c.env.map((e) => [e.name, e]));
  assert.equal(env.get('SHARD')?.valueFrom?.fieldRef?.fieldPath, "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  const n = Number(env.get('SHARDS')?.value);
  assert.equal(n, job.spec.completions, 'SHARDS = completions');
  assert.ok(job.spec.parallelism >= 1 && job.spec.parallelism <= n);
  const volumes = new Set(job.spec.template.spec.volumes.map((v) => v.name));
  for (const m of c.volumeMounts) assert.ok(volumes.has(m.name), `volume ${m.name} declared`);
  const mountOf = (path: string) => c.volumeMounts.find((m) => path.startsWith(m.mountPath + '/'));
  const backtest = (await import('../../src/cli/commands/backtest.ts')).default;
  const covered = new Set<number>();
  const parts = new Set<string>();
  for (let k = 0; k < n; k++) {
    // Kubernetes expands $(VAR) from the container's env in args
    const vars: Record<string, string> = { SHARD: String(k), SHARDS: String(n) };
    const argv = c.args.map((a) => a.replace(/\$\((\w+)\)/g, (_m, v: string) => vars[v] ?? _m));
    assert.equal(argv[0], 'backtest');
    const args = parseArgs(argv.slice(1), backtest.options);
    const shard = parseShard(args.options.shard as string);
    assert.deepEqual(shard, { index: k, count: n });
    // config and sweep files ship in the image (COPY config ./config)
    assert.ok(existsSync(args.options.config as string), `${args.options.config} is in the image`);
    const spec = await loadSweepSpec(args.options.sweep as string);
    const total = spec.grid.reduce((a, [, v]) => a * v.length, 1);
    for (let i = k; i < total; i += n) covered.add(i);
    const out = args.options.json as string;
    parts.add(out);
    assert.equal(mountOf(out)?.readOnly ?? false, false, 'parts on a writable volume');
    assert.equal(mountOf(args.options.data as string)?.name, 'recordings');
    if (k === n - 1) assert.equal(covered.size, total, 'the shards cover the whole grid');
  }
  assert.equal(parts.size, n, 'one part file per shard');
  assert.match(readFileSync('Dockerfile', 'utf8'), /COPY config \.\/config/);
});
