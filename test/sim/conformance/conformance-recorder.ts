/**
 * Checks answers of the local exchange against the OpenAPI document and records coverage: every
 * (operation, status) seen, so the suite can prove each path of the spec was exercised.
 *
 * An answer is checked against the schema the spec documents for its exact status. A status the
 * spec does not document for that operation fails, unless the case says why it is expected (e.g. the
 * venue's documented-elsewhere 409 during migration), in which case the body must still be a
 * PublicApiError. Operations missing from the spec are checked against hand-written schemas.
 */
import assert from 'node:assert/strict';
import type { ValidateFunction } from 'ajv';
import { compileSpec, describeErrors, specOperations, type CompiledSpec } from './openapi-schemas.ts';
import type { Answer } from './http-client.ts';

export interface ConformOptions {
  /** a status the spec omits for this operation but the venue documents elsewhere (reason required) */
  undocumented?: string;
  /** for operations not in the spec: the schema of the success body */
  extraSchema?: object;
}

export class ConformanceRecorder {
  readonly spec: CompiledSpec;
  /** `METHOD /template` → statuses seen */
  readonly coverage = new Map<string, Set<number>>();
  readonly extraCoverage = new Map<string, Set<number>>();
  readonly deviations: string[] = [];
  private readonly publicError: ValidateFunction;
  private readonly extraCache = new Map<object, ValidateFunction>();

  constructor() {
    this.spec = compileSpec();
    this.publicError = this.spec.component('PublicApiError');
  }

  private extra(schema: object): ValidateFunction {
    let v = this.extraCache.get(schema);
    if (!v) {
      v = this.spec.compile(schema);
      this.extraCache.set(schema, v);
    }
    return v;
  }

  /**
   * Assert the status, then the body against the documented schema. `op` is "METHOD /template" in
   * the spec's spelling (e.g. "GET /markets/{id}").
   */
  check(op: string, a: Answer, status: number, opts: ConformOptions = {}): void {
    const [method, path] = op.split(' ') as [string, string];
    assert.equal(a.status, status, `${op}: expected ${status}, got ${a.status} ${JSON.stringify(a.body)?.slice(0, 300)}`);
    const inSpec = this.spec.responses.some((r) => r.method === method && r.path === path);
    const cov = inSpec ? this.coverage : this.extraCoverage;
    if (!cov.has(op)) cov.set(op, new Set());
    cov.get(op)!.add(status);

    if (!inSpec) {
      assert.ok(opts.extraSchema || status >= 400, `${op} is not in the spec: the case must give its schema`);
      const v = status >= 400 ? this.publicError : this.extra(opts.extraSchema!);
      assert.ok(v(a.body), `${op} ${status} (docs/venue.md shape): ${describeErrors(v.errors)} in ${JSON.stringify(a.body)?.slice(0, 300)}`);
      return;
    }
    const documented = this.spec.find(method, path, status);
    if (!documented) {
      assert.ok(opts.undocumented, `${op}: status ${status} is not documented by the spec`);
      this.deviations.push(`${op} ${status}: ${opts.undocumented}`);
      assert.ok(this.publicError(a.body), `${op} ${status}: ${describeErrors(this.publicError.errors)}`);
      return;
    }
    if (documented.validate) {
      assert.ok(documented.validate(a.body), `${op} ${status}: ${describeErrors(documented.validate.errors)} in ${JSON.stringify(a.body)?.slice(0, 400)}`);
    }
    for (const h of documented.headers) {
      if (h === 'X-Next-Cursor') continue; // only present when there is a next page
      assert.ok(a.headers.get(h) !== null, `${op} ${status}: documented header ${h} missing`);
    }
  }

  /** Spec operations never answered with a 2xx in this run. */
  uncoveredSuccess(): string[] {
    return specOperations(this.spec).filter((op) => ![...(this.coverage.get(op) ?? [])].some((s) => s >= 200 && s < 300));
  }

  /** Spec operations never answered with an error status in this run. */
  uncoveredError(): string[] {
    return specOperations(this.spec).filter((op) => ![...(this.coverage.get(op) ?? [])].some((s) => s >= 400));
  }

  /** A table of operation → statuses, for the test log. */
  table(): string {
    const rows = [
      ...specOperations(this.spec).map((op) => [op, this.coverage.get(op)] as const),
      ...[...this.extraCoverage].map(([op, s]) => [`${op} (docs/venue.md)`, s] as const),
    ];
    return rows.map(([op, s]) => `${op.padEnd(52)} ${[...(s ?? [])].sort().join(' ') || 'NOT COVERED'}`).join('\n');
  }
}
