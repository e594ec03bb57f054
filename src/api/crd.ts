// The CustomResourceDefinitions of ReconciliationWindow and WindowOverride, built from the zod schemas (pure; scripts/generate.ts writes them).

import { z } from "zod";
import { stringify } from "yaml";
import { WindowOverrideSpecSchema } from "./override.ts";
import { OverrideStatusSchema, WindowStatusSchema } from "./status.ts";
import { GROUP, ReconciliationWindowSpecSchema, VERSION } from "./window.ts";

/** An OpenAPI v3 schema as a CRD carries it (wire names), restricted to what our schemas use. */
export interface JSONSchemaProps {
  description?: string;
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  format?: string;
  enum?: (string | number | boolean)[];
  default?: unknown;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  nullable?: boolean;
  items?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps;
  required?: string[];
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-validations"?: { rule: string; message: string; fieldPath?: string }[];
}

export interface PrinterColumn {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  jsonPath: string;
  description: string;
  priority?: number;
}

/** A CustomResourceDefinition (apiextensions.k8s.io/v1), in wire form, for one served and stored version. */
export interface CustomResourceDefinition {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "CustomResourceDefinition";
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames: string[]; categories: string[] };
    scope: "Namespaced";
    versions: {
      name: string;
      served: true;
      storage: true;
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: PrinterColumn[];
      schema: { openAPIV3Schema: JSONSchemaProps };
    }[];
  };
}

/** A zod schema that has no structural OpenAPI equivalent (a union, a reference, a tuple...). */
export class CrdSchemaError extends Error {
  readonly path: string;

  constructor(path: string, detail: string) {
    super(`${path || "(root)"}: ${detail}; the CRD needs a structural schema (one type per field, no unions or references)`);
    this.name = "CrdSchemaError";
    this.path = path;
  }
}

/** Keys zod emits that a structural schema keeps as they are. */
const KEPT = [
  "description",
  "format",
  "enum",
  "default",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "maxProperties",
  "nullable",
] as const;
/** Kubernetes extensions, written after the structure they describe. */
const EXTENSIONS = ["x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-validations"] as const;
const TYPES = new Set(["object", "array", "string", "integer", "number", "boolean"]);

/**
 * Converts a zod schema into a structural OpenAPI v3 schema: every node typed, no `$ref`, no
 * `additionalProperties: false` (the API server prunes unknown fields instead), metadata kept
 * (descriptions, defaults, CEL rules). Throws a CrdSchemaError for anything else.
 */
export function structuralSchema(schema: z.ZodType): JSONSchemaProps {
  const json = z.toJSONSchema(schema, { io: "input", target: "openapi-3.0", unrepresentable: "throw" }) as Record<string, unknown>;
  return toStructural(json, "");
}

function toStructural(node: Record<string, unknown>, path: string): JSONSchemaProps {
  const known = new Set<string>([...KEPT, ...EXTENSIONS, "type", "properties", "required", "items", "additionalProperties", "propertyNames"]);
  for (const key of Object.keys(node)) {
    if (!known.has(key)) throw new CrdSchemaError(path, `"${key}" is not supported`);
  }
  const type = node["type"];
  if (typeof type !== "string" || !TYPES.has(type)) throw new CrdSchemaError(path, `has no single type (${JSON.stringify(type)})`);
  const out: Record<string, unknown> = {};
  if (node["description"] !== undefined) out["description"] = node["description"];
  out["type"] = type;
  for (const key of KEPT) {
    if (key !== "description" && node[key] !== undefined) out[key] = node[key];
  }
  if (type === "integer") {
    // zod bounds integers to JavaScript's safe range; Kubernetes integers are int64.
    if (out["minimum"] === Number.MIN_SAFE_INTEGER) delete out["minimum"];
    if (out["maximum"] === Number.MAX_SAFE_INTEGER) delete out["maximum"];
    out["format"] ??= "int64";
  }
  const items = node["items"];
  if (items !== undefined) {
    if (typeof items !== "object" || items === null || Array.isArray(items)) throw new CrdSchemaError(path, "has tuple items");
    out["items"] = toStructural(items as Record<string, unknown>, `${path}[]`);
  }
  const properties = node["properties"] as Record<string, Record<string, unknown>> | undefined;
  if (properties !== undefined) {
    out["properties"] = Object.fromEntries(
      Object.entries(properties).map(([name, child]) => [name, toStructural(child, path === "" ? name : `${path}.${name}`)]),
    );
  }
  const additional = node["additionalProperties"];
  if (typeof additional === "object" && additional !== null) {
    if (properties !== undefined) throw new CrdSchemaError(path, "has both properties and additionalProperties");
    out["additionalProperties"] = toStructural(additional as Record<string, unknown>, `${path}.*`);
  }
  const names = node["propertyNames"] as Record<string, unknown> | undefined;
  if (names !== undefined && !(Object.keys(names).length === 1 && names["type"] === "string")) {
    throw new CrdSchemaError(path, "restricts its keys (propertyNames)");
  }
  const required = node["required"] as string[] | undefined;
  if (required !== undefined && required.length > 0) out["required"] = required;
  for (const key of EXTENSIONS) {
    if (node[key] !== undefined) out[key] = node[key];
  }
  return out;
}

/** The top of a kind's schema: the standard fields, then spec and status. */
function objectSchema(description: string, spec: z.ZodType, status: z.ZodType): JSONSchemaProps {
  const described = (text: string, schema: JSONSchemaProps): JSONSchemaProps => ({ description: text, ...schema });
  return {
    description,
    type: "object",
    properties: {
      apiVersion: {
        description: "APIVersion defines the versioned schema of this representation of an object.",
        type: "string",
      },
      kind: { description: "Kind is a string value representing the REST resource this object represents.", type: "string" },
      metadata: { type: "object" },
      spec: described("What the user asks for.", structuralSchema(spec)),
      status: described("What the controller observed and did; written by fluxgate only.", structuralSchema(status)),
    },
    required: ["spec"],
  };
}

const AGE: PrinterColumn = {
  name: "Age",
  type: "date",
  jsonPath: ".metadata.creationTimestamp",
  description: "How long ago the object was created.",
};

interface KindSpec {
  kind: string;
  plural: string;
  shortNames: string[];
  description: string;
  columns: PrinterColumn[];
  spec: z.ZodType;
  status: z.ZodType;
}

function crd(k: KindSpec): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${k.plural}.${GROUP}`, labels: { "app.kubernetes.io/name": "fluxgate", "app.kubernetes.io/component": "crd" } },
    spec: {
      group: GROUP,
      names: {
        kind: k.kind,
        listKind: `${k.kind}List`,
        plural: k.plural,
        singular: k.kind.toLowerCase(),
        shortNames: k.shortNames,
        categories: ["fluxgate"],
      },
      scope: "Namespaced",
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: k.columns,
          schema: { openAPIV3Schema: objectSchema(k.description, k.spec, k.status) },
        },
      ],
    },
  };
}

/** The CRD of ReconciliationWindow (`kubectl get rwin`). */
export function windowCrd(): CustomResourceDefinition {
  return crd({
    kind: "ReconciliationWindow",
    plural: "reconciliationwindows",
    shortNames: ["rwin"],
    description:
      "ReconciliationWindow decides when the Flux objects it targets may take new changes: open during its schedules, closed otherwise, and frozen during its freezes.",
    spec: ReconciliationWindowSpecSchema,
    status: WindowStatusSchema,
    columns: [
      { name: "State", type: "string", jsonPath: ".status.state", description: "Open, Closed, Frozen or Overridden." },
      { name: "Next", type: "string", jsonPath: ".status.nextTransition", description: "Next change of state (RFC 3339 UTC)." },
      { name: "Targets", type: "integer", jsonPath: ".status.targets.matched", description: "Targets the window selects." },
      { name: "Pending", type: "integer", jsonPath: ".status.targets.pending", description: "Targets with a revision waiting to be applied." },
      AGE,
      { name: "Reason", type: "string", jsonPath: ".status.reason", description: "Why the window is in its state.", priority: 1 },
    ],
  });
}

/** The CRD of WindowOverride (`kubectl get wo`). */
export function overrideCrd(): CustomResourceDefinition {
  return crd({
    kind: "WindowOverride",
    plural: "windowoverrides",
    shortNames: ["wo"],
    description:
      "WindowOverride opens (break glass) or freezes (stop the line) one ReconciliationWindow until a given time, with a reason; it stays as a record after it expires.",
    spec: WindowOverrideSpecSchema,
    status: OverrideStatusSchema,
    columns: [
      { name: "Window", type: "string", jsonPath: ".spec.windowRef.name", description: "The window overridden." },
      { name: "Action", type: "string", jsonPath: ".spec.action", description: "Open or Freeze." },
      { name: "Until", type: "string", jsonPath: ".spec.until", description: "When the override ends." },
      { name: "Phase", type: "string", jsonPath: ".status.phase", description: "Active, Expired, Cancelled, WindowNotFound or Invalid." },
      AGE,
      { name: "Reason", type: "string", jsonPath: ".spec.reason", description: "Why.", priority: 1 },
    ],
  });
}

/** Where the generated files live, relative to the repository root. */
export const CRD_DIR = "config/crd";
/** The Helm chart's CRDs, relative to the repository root: the same files as `CRD_DIR/bases` (Helm installs crds/ before the templates). */
export const CHART_CRD_DIR = "charts/fluxgate/crds";

const HEADER = [
  "# Generated by `npm run generate` (scripts/generate.ts) from the zod schemas in src/api. Do not edit:",
  "# change the schemas and run `npm run generate`.",
].join("\n");

function fileName(c: CustomResourceDefinition): string {
  return `bases/${c.spec.group}_${c.spec.names.plural}.yaml`;
}

/**
 * The generated files under `config/crd`, by path relative to it: one YAML file per CRD and the
 * kustomization listing them.
 */
export function renderCrdFiles(): Map<string, string> {
  const crds = [windowCrd(), overrideCrd()];
  const files = new Map<string, string>();
  for (const c of crds) files.set(fileName(c), `${HEADER}\n---\n${stringify(c, { lineWidth: 0 })}`);
  const kustomization = { apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", resources: crds.map(fileName) };
  files.set("kustomization.yaml", `${HEADER}\n${stringify(kustomization)}`);
  return files;
}

/** The generated files under `charts/fluxgate/crds`, by file name: byte for byte the CRD files of `config/crd/bases`. */
export function renderChartCrdFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, content] of renderCrdFiles()) if (name.startsWith("bases/")) files.set(name.slice("bases/".length), content);
  return files;
}
