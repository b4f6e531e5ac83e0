import type { StandardSchemaV1 } from '@pothos/plugin-validation';
import {
  type ASTNode,
  coerceInputValue,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  Kind,
  type OperationDefinitionNode,
  typeFromAST,
  type ValueNode,
  visit,
} from 'graphql';
import { ERROR_KINDS, type FieldIssue, formatPath } from '../common/errors.ts';
import { pothosOptionsOf } from './builder.ts';
import { clientError } from './errors.ts';

/** Where each argument value sits in the document, as a path from the field's arguments (`input.dates[0]`). */
function argumentValuePaths(document: DocumentNode): Map<ValueNode, (string | number)[]> {
  const paths = new Map<ValueNode, (string | number)[]>();
  const walk = (node: ValueNode, path: (string | number)[]) => {
    paths.set(node, path);
    if (node.kind === Kind.OBJECT)
      for (const field of node.fields) walk(field.value, [...path, field.name.value]);
    if (node.kind === Kind.LIST) {
      for (const [index, value] of node.values.entries()) walk(value, [...path, index]);
    }
  };
  visit(document, { Argument: (argument) => walk(argument.value, [argument.name.value]) });
  return paths;
}

/** The argument path where a variable is used, so `$d` in `museumHours(startDate: $d)` reads `startDate`. */
function variableUse(paths: Map<ValueNode, (string | number)[]>, name: string): (string | number)[] {
  for (const [node, path] of paths) if (node.kind === Kind.VARIABLE && node.name.value === name) return path;
  return [name];
}

/**
 * Coerces the variables once more, collecting each problem with its structured path: graphql-js reports
 * them only as sentences, and clients need `{path, message}` for every offending field.
 */
function variableIssues(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  values: Record<string, unknown>,
  paths: Map<ValueNode, (string | number)[]>,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type as never);
    if (!type || !isInputType(type)) continue;
    const base = variableUse(paths, name);
    const value = values[name];
    if (value === undefined || value === null) {
      if (isNonNullType(type) && !definition.defaultValue) {
        issues.push({ path: formatPath(base), message: value === null ? 'must not be null' : 'is required' });
      }
      continue;
    }
    const before = issues.length;
    coerceInputValue(value, type, (path, _invalid, error) => {
      const missing = /^Field "([^"]+)" of required type .* was not provided\.$/.exec(error.message);
      const unknown = /^Field "([^"]+)" is not defined by type/.exec(error.message);
      const at = [...base, ...path];
      if (missing) issues.push({ path: formatPath([...at, missing[1]!]), message: 'is required' });
      else if (unknown)
        issues.push({ path: formatPath([...at, unknown[1]!]), message: 'is not a known field' });
      else issues.push({ path: formatPath(at), message: plainMessage(schema, error.message) });
    });
    if (issues.length > before)
      issues.push(...ruleIssues(getNamedType(type), value, base, issues.slice(before)));
  }
  return issues;
}

/** graphql-js speaks of its types; clients of a JSON API want to hear what to send instead. */
function plainMessage(schema: GraphQLSchema, message: string): string {
  if (message.startsWith('Int cannot represent'))
    return 'must be a whole number from -2147483648 to 2147483647';
  if (message.startsWith('Float cannot represent')) return 'must be a number';
  if (message.startsWith('String cannot represent')) return 'must be a string';
  if (message.startsWith('Boolean cannot represent')) return 'must be true or false';
  if (/^Expected type "[^"]+" to be an object/.test(message)) return 'must be an object';
  const enumName = /^Value .* does not exist in "([^"]+)" enum/.exec(message)?.[1];
  const enumType = enumName ? schema.getType(enumName) : undefined;
  if (enumType && isEnumType(enumType))
    return `must be one of: ${enumType
      .getValues()
      .map((v) => v.name)
      .join(', ')}`;
  return message;
}

/**
 * The rules (zod) of an input object whose types were wrong, applied to the raw value anyway, so one answer
 * names every offending field: what the type check already named is not repeated.
 */
function ruleIssues(
  type: GraphQLNamedType,
  value: unknown,
  base: (string | number)[],
  named: FieldIssue[],
): FieldIssue[] {
  const rules = pothosOptionsOf(type).validate as StandardSchemaV1 | undefined;
  const result = rules?.['~standard'].validate(value);
  if (!result || result instanceof Promise || !result.issues) return [];
  const covered = (path: string) =>
    named.some(
      (issue) =>
        path === issue.path || path.startsWith(`${issue.path}.`) || path.startsWith(`${issue.path}[`),
    );
  return result.issues
    .map((issue) => ({ path: formatPath([...base, ...(issue.path ?? [])]), message: issue.message }))
    .filter((issue) => !covered(issue.path));
}

/**
 * GraphQL would quietly wrap a single value given for a list (`"dates": "2030-01-01"`); JSON clients that
 * send that have a bug, so variables must give lists as lists.
 */
function singleValuesForLists(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  values: Record<string, unknown>,
): { variable: string; path: (string | number)[] }[] {
  const found: { variable: string; path: (string | number)[] }[] = [];
  const walk = (type: GraphQLInputType, value: unknown, variable: string, path: (string | number)[]) => {
    if (value === null || value === undefined) return;
    const inner = isNonNullType(type) ? type.ofType : type;
    if (isListType(inner)) {
      if (!Array.isArray(value)) found.push({ variable, path });
      else for (const [index, item] of value.entries()) walk(inner.ofType, item, variable, [...path, index]);
    } else if (isInputObjectType(inner) && typeof value === 'object' && !Array.isArray(value)) {
      const fields = inner.getFields();
      for (const [name, item] of Object.entries(value)) {
        const field = fields[name];
        if (field) walk(field.type, item, variable, [...path, name]);
      }
    }
  };
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type as never);
    if (type && isInputType(type))
      walk(type, values[definition.variable.name.value], definition.variable.name.value, []);
  }
  return found;
}

const isVariableError = (error: GraphQLError) => error.message.startsWith('Variable "$');

/**
 * Validation errors a scalar found in the document's literals, with the shape of a validation failure:
 * `extensions.code = BAD_USER_INPUT` and `extensions.errors = [{path, message}]`.
 */
export function shapeLiteralErrors(
  document: DocumentNode,
  errors: readonly GraphQLError[],
): readonly GraphQLError[] {
  if (!errors.some((error) => error.extensions.code === ERROR_KINDS.validation.code)) return errors;
  const paths = argumentValuePaths(document);
  return errors.map((error) => {
    if (error.extensions.code !== ERROR_KINDS.validation.code) return error;
    const path = paths.get(error.nodes?.[0] as ASTNode as ValueNode);
    return path
      ? clientError('validation', error.message, [{ path: formatPath(path), message: error.message }], error)
      : error;
  });
}

// Whether an operation's variables can hold a list anywhere (a list type, or an input object with a list
// somewhere inside): asked once per operation, so the variables of the rest (a purchase's, a range's) are not
// walked on every run.
const mayHoldLists = new WeakMap<OperationDefinitionNode, boolean>();

function holdsLists(schema: GraphQLSchema, operation: OperationDefinitionNode): boolean {
  let found = mayHoldLists.get(operation);
  if (found === undefined) {
    found = (operation.variableDefinitions ?? []).some(({ type }) => {
      const input = typeFromAST(schema, type as never);
      return input !== undefined && isInputType(input) && typeHoldsLists(input, new Set());
    });
    mayHoldLists.set(operation, found);
  }
  return found;
}

/** Whether a value of `type` can hold a list anywhere inside it (`seen`: the input objects already looked into). */
function typeHoldsLists(type: GraphQLInputType, seen: Set<GraphQLNamedType>): boolean {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return true;
  if (!isInputObjectType(inner) || seen.has(inner)) return false;
  seen.add(inner);
  return Object.values(inner.getFields()).some((field) => typeHoldsLists(field.type, seen));
}

/** A single value given for a list variable (`"dates": "2030-01-01"`): the refusal naming each, or null. */
export function looseListRefusal(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): GraphQLError | null {
  if (!holdsLists(schema, operation)) return null;
  const loose = singleValuesForLists(schema, operation, variables);
  if (loose.length === 0) return null;
  const paths = argumentValuePaths(document);
  const issues = loose.map(({ variable, path }) => ({
    path: formatPath([...variableUse(paths, variable), ...path]),
    message: 'must be a list',
  }));
  return clientError(
    'validation',
    `Validation failed: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    issues,
  );
}

/**
 * A result whose variables were refused (graphql-js reports them only as sentences) becomes one validation
 * failure naming every offending field with its structured path.
 */
export function shapeVariableErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  result: ExecutionResult,
): ExecutionResult {
  if (!result.errors?.some(isVariableError)) return result;
  const issues = variableIssues(schema, operation, variables, argumentValuePaths(document));
  if (issues.length === 0) return result;
  const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  return { errors: [clientError('validation', `Validation failed: ${detail}`, issues)] };
}
