/**
 * Compiles the response schemas of the venue's OpenAPI 3.0 document (the file named by
 * BOOKMAKER_OPENAPI, else ../shared/openapi.json beside the repository: see findSpec) into ajv
 * validators, so the conformance suite can check every answer of the local exchange against the
 * documented shape.
 *
 * OpenAPI 3.0 is not JSON Schema: it has `nullable`, boolean `exclusiveMinimum` (draft-04 style),
 * `example` and `$ref`s into `#/components/schemas`. We translate those into draft-07 before compiling,
 * rather than loosening ajv, so a `nullable: true` field really accepts null and nothing else extra.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with a default export; under ESM interop the callable may sit on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

/** Where the development machines keep the venue's spec: ../shared/openapi.json beside the repository. */
export const SHARED_SPEC_PATH = fileURLToPath(new URL('../../../../shared/openapi.json', import.meta.url));

/**
 * The venue's OpenAPI document is not part of the repository (it is the venue's, published with its
 * SDK). Tests that validate against it read the file named by BOOKMAKER_OPENAPI, else
 * ../shared/openapi.json; when there is none they skip with `reason` (a fresh clone passes its tests).
 */
export function findSpec(env: NodeJS.ProcessEnv = process.env): { path: string; reason?: undefined } | { path: null; reason: string } {
  const fromEnv = env.BOOKMAKER_OPENAPI;
  if (fromEnv) {
    if (existsSync(fromEnv)) return { path: fromEnv };
    return { path: null, reason: `BOOKMAKER_OPENAPI=${fromEnv} does not exist: the venue's OpenAPI spec is needed to validate against it` };
  }
  if (existsSync(SHARED_SPEC_PATH)) return { path: SHARED_SPEC_PATH };
  return {
    path: null,
    reason: `no OpenAPI spec: ${SHARED_SPEC_PATH} is absent and BOOKMAKER_OPENAPI is not set (set it to the venue's openapi.json to run these tests)`,
  };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const SPEC_ID = 'openapi';

/** One documented (method, path, status) answer. */
export interface ResponseSpec {
  method: string;
  path: string;
  status: string;
  /** null when the spec documents no JSON body for that status */
  validate: ValidateFunction | null;
  headers: string[];
}

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Translate one OpenAPI 3.0 schema node into draft-07, recursively. Pure. */
export function toJsonSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example' || k === 'nullable' || k === 'description') continue;
    if (k === '$ref' && typeof v === 'string') {
      out.$ref = v.replace(/^#\/components\/schemas\//, `${SPEC_ID}#/definitions/`);
      continue;
    }
    if (k === 'properties' && isObject(v)) {
      const props: JsonObject = {};
      for (const [pk, pv] of Object.entries(v)) props[pk] = toJsonSchema(pv);
      out.properties = props;
      continue;
    }
    out[k] = toJsonSchema(v);
  }
  // draft-04 style exclusive bounds: {minimum: 0, exclusiveMinimum: true} → {exclusiveMinimum: 0}
  if (typeof node.exclusiveMinimum === 'boolean') {
    delete out.exclusiveMinimum;
    if (node.exclusiveMinimum && typeof node.minimum === 'number') {
      out.exclusiveMinimum = node.minimum;
      delete out.minimum;
    }
  }
  if (typeof node.exclusiveMaximum === 'boolean') {
    delete out.exclusiveMaximum;
    if (node.exclusiveMaximum && typeof node.maximum === 'number') {
      out.exclusiveMaximum = node.maximum;
      delete out.maximum;
    }
  }
  if (node.nullable === true) {
    // `{nullable: true}` with no type means "anything, including null": nothing to add.
    if (typeof node.type === 'string') out.type = [node.type, 'null'];
    if (Array.isArray(node.enum) && !node.enum.includes(null)) out.enum = [...node.enum, null];
    // a nullable $ref or combinator: allow null beside it
    if (node.type === undefined && (out.$ref || out.anyOf || out.oneOf || out.allOf)) {
      return { anyOf: [{ type: 'null' }, out] };
    }
  }
  return out;
}

export interface CompiledSpec {
  ajv: Ajv;
  spec: JsonObject;
  responses: ResponseSpec[];
  /** validator of a named component schema (e.g. "PublicApiError") */
  component(name: string): ValidateFunction;
  /** the documented answer for (method, path template, status), or undefined */
  find(method: string, path: string, status: number | string): ResponseSpec | undefined;
  /** compile a hand-written schema (for endpoints missing from the spec); may $ref `openapi#/definitions/X` */
  compile(schema: object): ValidateFunction;
}

/** Load and compile the spec once. */
export function compileSpec(path: string | null = findSpec().path): CompiledSpec {
  if (path === null) throw new Error(findSpec().reason);
  const spec = JSON.parse(readFileSync(path, 'utf8')) as JsonObject;
  const components = (spec.components as JsonObject).schemas as JsonObject;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  const definitions: JsonObject = {};
  for (const [name, s] of Object.entries(components)) definitions[name] = toJsonSchema(s);
  ajv.addSchema({ $id: SPEC_ID, definitions } as object);

  const responses: ResponseSpec[] = [];
  for (const [p, ops] of Object.entries(spec.paths as JsonObject)) {
    if (!isObject(ops)) continue;
    for (const [method, op] of Object.entries(ops)) {
      if (!isObject(op) || !isObject(op.responses)) continue;
      for (const [status, resp] of Object.entries(op.responses)) {
        if (!isObject(resp)) continue;
        const content = isObject(resp.content) ? resp.content : undefined;
        const media = content && isObject(content['application/json']) ? content['application/json'] : undefined;
        const schema = media && isObject(media) ? media.schema : undefined;
        const validate = schema !== undefined ? ajv.compile(toJsonSchema(schema) as object) : null;
        const headers = isObject(resp.headers) ? Object.keys(resp.headers) : [];
        responses.push({ method: method.toUpperCase(), path: p, status, validate, headers });
      }
    }
  }
  const byKey = new Map(responses.map((r) => [`${r.method} ${r.path} ${r.status}`, r]));
  return {
    ajv,
    spec,
    responses,
    component(name) {
      const v = ajv.getSchema(`${SPEC_ID}#/definitions/${name}`);
      if (!v) throw new Error(`no component schema ${name}`);
      return v;
    },
    find(method, p, status) {
      return byKey.get(`${method.toUpperCase()} ${p} ${status}`);
    },
    compile(schema) {
      return ajv.compile(schema);
    },
  };
}

/** A readable one-line summary of ajv errors, for assertion messages. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return '';
  return errors
    .slice(0, 6)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}${e.params ? ' ' + JSON.stringify(e.params) : ''}`)
    .join('; ');
}

/** Every (METHOD, path template) the spec documents. */
export function specOperations(compiled: CompiledSpec): string[] {
  return [...new Set(compiled.responses.map((r) => `${r.method} ${r.path}`))].sort();
}
