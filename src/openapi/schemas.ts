// JSON Schema 2020-12 (OpenAPI 3.1's dialect) for the OpenAPI document (src/openapi/document.ts): from the zod
// schemas that validate requests, and from the GraphQL types (scalar formats, no unknown fields, the fields a
// route's document selects).

import {
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import { z } from 'zod';
import { pothosOptionsOf } from '../graphql/builder.ts';
import type { ScalarExtensions } from '../graphql/scalars.ts';

export type Json = Record<string, unknown>;

/** JSON Schema of GraphQL's own scalars; the schema's own describe themselves (graphql/scalars.ts). */
const BUILT_IN_SCALARS: Record<string, Json> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer', format: 'int32', minimum: -(2 ** 31), maximum: 2 ** 31 - 1 },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
};

const scalarSchema = (scalar: GraphQLNamedType): Json => ({
  ...((scalar.extensions as Partial<ScalarExtensions>).jsonSchema ?? BUILT_IN_SCALARS[scalar.name] ?? {}),
});

/** The length of every value of a string format whose syntax fixes it. */
const FORMAT_LENGTHS: Record<string, number> = { date: 10, uuid: 36 };

/**
 * zod → JSON Schema 2020-12 (OpenAPI 3.1's dialect); refinements carry theirs through `.meta()`, a date or
 * UUID says its length, which its format fixes, and an integer its size.
 */
export function fromZod(schema: z.ZodType): Json {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      const length = FORMAT_LENGTHS[String(jsonSchema.format)];
      if (length !== undefined) jsonSchema.maxLength ??= length;
      // Every integer the API takes is a GraphQL Int.
      if (jsonSchema.type === 'integer') jsonSchema.format ??= 'int32';
    },
  }) as Json;
  delete json.$schema;
  return json;
}

/** A nullable `anyOf: [X, {type: null}]` as X: query and path parameters are never null. */
export function withoutNull(schema: Json): Json {
  const anyOf = schema.anyOf as Json[] | undefined;
  if (!anyOf) return schema;
  const rest = anyOf.filter((branch) => branch.type !== 'null');
  if (rest.length !== 1) return schema;
  const { anyOf: _dropped, ...others } = schema;
  return { ...rest[0], ...others };
}

function unwrapNonNull<T extends GraphQLInputType | GraphQLOutputType>(type: T): T {
  return (isNonNullType(type) ? type.ofType : type) as T;
}

/** What a GraphQL input type accepts, as JSON Schema (scalars, lists, input objects with no unknown fields). */
export function inputTypeSchema(type: GraphQLInputType): Json {
  const inner = unwrapNonNull(type);
  if (isListType(inner)) return { type: 'array', items: inputTypeSchema(inner.ofType) };
  if (isEnumType(inner)) return { type: 'string', enum: inner.getValues().map((v) => v.value) };
  if (isInputObjectType(inner)) {
    const fields = Object.values(inner.getFields());
    return {
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [f.name, inputTypeSchema(f.type)])),
      required: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name),
      additionalProperties: false,
    };
  }
  return scalarSchema(inner);
}

/**
 * A request body: the zod schema that validates the input type (its rules), completed with what the
 * GraphQL input type enforces first (scalar formats, no unknown fields) and its descriptions.
 */
export function requestBodySchema(type: GraphQLInputType): Json {
  const inputType = getNamedType(type);
  if (!isInputObjectType(inputType)) return inputTypeSchema(type);
  const validator = pothosOptionsOf(inputType).validate;
  const schema = validator instanceof z.ZodType ? fromZod(validator) : inputTypeSchema(type);
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  for (const field of Object.values(inputType.getFields())) {
    properties[field.name] ??= inputTypeSchema(field.type);
    const property = properties[field.name]!;
    // A nullable field's rules sit in its non-null branch.
    const branches = (property.anyOf as Json[] | undefined) ?? [property];
    const target = branches.find((branch) => branch.type !== 'null') ?? property;
    const { description: _d, ...graphqlKeywords } = inputTypeSchema(field.type);
    for (const [key, value] of Object.entries(graphqlKeywords)) target[key] ??= value;
    if (field.description) property.description ??= field.description;
  }
  schema.properties = properties;
  schema.additionalProperties = false;
  if (inputType.description) schema.description ??= inputType.description;
  return schema;
}

/** What each answer's field holds at most, by GraphQL type and field (answer-limits.ts). */
export type AnswerLimits = Record<string, Record<string, Json>>;

/**
 * What REST answers for a root field: the selected fields (null ones left out, so not required), each with
 * what it holds at most (`limits`).
 */
export function outputSchema(
  type: GraphQLOutputType,
  selections: SelectionSetNode | undefined,
  limits: AnswerLimits,
): Json {
  const inner = unwrapNonNull(type);
  if (isListType(inner)) return { type: 'array', items: outputSchema(inner.ofType, selections, limits) };
  if (isEnumType(inner)) return { type: 'string', enum: inner.getValues().map((v) => v.value) };
  if (isObjectType(inner)) {
    const fields = inner.getFields();
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    for (const selection of selections?.selections ?? []) {
      if (selection.kind !== Kind.FIELD) continue;
      const field = fields[selection.name.value];
      if (!field) continue;
      const key = selection.alias?.value ?? field.name;
      const property: Json = {
        ...outputSchema(field.type, selection.selectionSet, limits),
        // What a field says of its values beyond its type (an `ID` that is a UUID).
        ...(field.extensions as { jsonSchema?: Json }).jsonSchema,
        ...limits[inner.name]?.[field.name],
        ...(field.description ? { description: field.description } : {}),
      };
      const length = FORMAT_LENGTHS[String(property.format)];
      if (length !== undefined) property.maxLength ??= length;
      properties[key] = property;
      // A field selected under @include or @skip is not always there.
      if (isNonNullType(field.type) && !selection.directives?.length) required.push(key);
    }
    return {
      type: 'object',
      properties,
      required,
      ...(inner.description ? { description: inner.description } : {}),
    };
  }
  return scalarSchema(inner);
}
