import path from 'node:path';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import * as ts from 'typescript';
import type { ParsedYaml } from './repo';

/** A Kubernetes object as parsed from YAML. */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: ParsedYaml;
}

type ModelClass = new (data: ParsedYaml) => { validate(): void };

/** The kubernetes-models class of each supported kind (keep in step with kubernetes-kinds.ts). */
const MODELS: Record<string, ModelClass> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
};

export function kindKey(object: { apiVersion?: unknown; kind?: unknown }): string {
  return `${String(object.apiVersion)}/${String(object.kind)}`;
}

/**
 * A kind of the Kubernetes API itself (core or a built-in group such as apps or
 * networking.k8s.io), which every cluster serves: kubernetes-models, generated from the
 * Kubernetes OpenAPI document, has a class for it. A custom resource (monitoring.coreos.com,
 * cert-manager.io, ...) needs its CRD installed first.
 */
export function isBuiltInKind(object: { apiVersion?: unknown; kind?: unknown }): boolean {
  try {
    require.resolve(`kubernetes-models/${String(object.apiVersion)}/${String(object.kind)}`);
    return true;
  } catch {
    return false;
  }
}

export function supportedKinds(): string[] {
  return Object.keys(MODELS);
}

/**
 * Builds the object with its kubernetes-models class and validates it against the Kubernetes
 * OpenAPI schema (types, enums, required fields). Throws with the schema's errors.
 */
export function validateWithModel(object: KubernetesObject): void {
  const Model = MODELS[kindKey(object)];
  if (!Model) throw new Error(`no model for ${kindKey(object)}`);
  new Model(object).validate();
}

interface FieldTables {
  checker: ts.TypeChecker;
  kinds: ts.Type;
}

let tables: FieldTables | undefined;

/** The TypeScript view of kubernetes-models' interfaces, loaded once (about a second). */
function fieldTables(): FieldTables {
  if (tables) return tables;
  const file = path.join(__dirname, 'kubernetes-kinds.ts');
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  const symbol = moduleSymbol
    ? checker.getExportsOfModule(moduleSymbol).find((s) => s.name === 'KubernetesKinds')
    : undefined;
  if (!symbol) throw new Error(`KubernetesKinds not found in ${file}`);
  tables = { checker, kinds: checker.getDeclaredTypeOfSymbol(symbol) };
  return tables;
}

const NULLISH = ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void;

function walk(value: unknown, type: ts.Type, at: string, checker: ts.TypeChecker, out: string[]) {
  if (value === null || value === undefined) return;
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
  const candidates = (type.isUnion() ? type.types : [type]).filter((t) => !(t.flags & NULLISH));

  if (Array.isArray(value)) {
    // A value of the wrong shape is validateWithModel's to report; here only field names.
    const arrayType = candidates.find((t) => checker.isArrayType(t));
    if (!arrayType) return;
    const [element] = checker.getTypeArguments(arrayType as ts.TypeReference);
    if (element) value.forEach((item, i) => walk(item, element, `${at}[${i}]`, checker, out));
    return;
  }
  if (typeof value !== 'object') return;

  const objectTypes = candidates.filter(
    (t) => t.flags & ts.TypeFlags.Object && !checker.isArrayType(t),
  );
  if (objectTypes.length === 0) return;
  for (const [key, child] of Object.entries(value)) {
    let childType: ts.Type | undefined;
    for (const candidate of objectTypes) {
      const property = candidate.getProperty(key);
      childType = property
        ? checker.getTypeOfSymbol(property)
        : (candidate.getStringIndexType() ?? undefined);
      if (childType) break;
    }
    if (childType) walk(child, childType, `${at}.${key}`, checker, out);
    else out.push(`${at}.${key}`);
  }
}

/**
 * The paths of the fields that the Kubernetes API does not define for the object's kind
 * (e.g. `.spec.replcas`), which the schema validation alone lets through. Empty when clean.
 */
export function unknownFields(object: KubernetesObject): string[] {
  const { checker, kinds } = fieldTables();
  const property = kinds.getProperty(kindKey(object));
  if (!property) throw new Error(`no field table for ${kindKey(object)}`);
  const out: string[] = [];
  walk(object, checker.getTypeOfSymbol(property), '', checker, out);
  return out;
}
