// What a query costs, counting every object and value it can bring back: a field costs 2 when it brings an
// object, 1 when a value, times the items of every page it sits in. A field with a `limit` argument (or
// `ids`, or `representations`) multiplies what lies beneath it by that many (its default when left out, the
// most it allows when a variable), and a list no argument bounds by the size its field declares
// (`extensions.listSize`), so a nested list multiplies. A connection's `first` or `last` (10 when neither is
// given) multiplies its `edges`. Fragments are flattened; introspection is free.
// `_entities`' representations are known only with the variables a gateway sends them in: validation counts
// one, and `_entities` counts the operation again with them before it reads anything (executionCost).
import {
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isLeafType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValueNode,
} from 'graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../common/pagination.ts';

type Field = GraphQLField<unknown, unknown>;

/** What the cost is read from: the schema and the document's fragments (validation's context, or a resolver's). */
interface Document {
  getSchema(): GraphQLSchema;
  getFragment(name: string): FragmentDefinitionNode | null | undefined;
}

/** The arguments that say how many items a field brings: a page's size, or the keys it looks up. */
const SIZE_ARGUMENTS = ['limit', 'ids', 'representations'];

/** How many items a field's size argument asks for, or its declared list size, else 1. */
function itemsOf(field: Field, node: FieldNode, variables: Record<string, unknown> | undefined): number {
  const declared = (field.extensions as { listSize?: number }).listSize;
  for (const name of SIZE_ARGUMENTS) {
    const arg = field.args.find((a) => a.name === name);
    if (!arg) continue;
    const value: ValueNode | undefined = node.arguments?.find((a) => a.name.value === name)?.value;
    if (value?.kind === Kind.INT) return Math.max(1, Math.min(Number(value.value), MAX_PAGE_SIZE));
    if (value?.kind === Kind.LIST) return Math.max(1, value.values.length);
    if (!value && typeof arg.defaultValue === 'number') return arg.defaultValue;
    if (name === 'representations') {
      const held = value?.kind === Kind.VARIABLE ? variables?.[value.name.value] : undefined;
      return Array.isArray(held) ? Math.max(1, held.length) : 1;
    }
    return MAX_PAGE_SIZE;
  }
  return declared ?? 1;
}

/** How many edges a connection field's `first` or `last` asks for (src/graphql/connections.ts). */
function edgesOf(node: FieldNode): number {
  const value = node.arguments?.find((a) => a.name.value === 'first' || a.name.value === 'last')?.value;
  if (!value) return DEFAULT_PAGE_SIZE;
  if (value.kind === Kind.INT) return Math.max(1, Math.min(Number(value.value), MAX_PAGE_SIZE));
  return MAX_PAGE_SIZE;
}

const isConnection = (field: Field) => field.args.some((arg) => arg.name === 'first');

/** The cost of an operation's selections, its variables known or not. */
function costOf(document: Document, variables?: Record<string, unknown>) {
  /** The cost of `selections` on `type`; `edges`: the items of the connection they select from, if any. */
  function selectionCost(
    type: GraphQLNamedType,
    selections: SelectionSetNode,
    seen: Set<string>,
    edges = 1,
  ): number {
    let cost = 0;
    for (const selection of selections.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name.startsWith('__')) continue;
        const field = 'getFields' in type ? (type.getFields() as Record<string, Field>)[name] : undefined;
        if (!field) continue;
        const inner = getNamedType(field.type);
        if (isLeafType(inner) || !selection.selectionSet) {
          cost += 1;
          continue;
        }
        if (isConnection(field)) {
          cost += 2 + selectionCost(inner, selection.selectionSet, seen, edgesOf(selection));
          continue;
        }
        const items = name === 'edges' ? edges : itemsOf(field, selection, variables);
        cost += 2 + items * selectionCost(inner, selection.selectionSet, seen);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition
          ? document.getSchema().getType(selection.typeCondition.name.value)
          : type;
        cost += selectionCost(condition ?? type, selection.selectionSet, seen, edges);
      } else {
        const name = selection.name.value;
        const fragment = document.getFragment(name);
        if (!fragment || seen.has(name)) continue;
        const condition = document.getSchema().getType(fragment.typeCondition.name.value) ?? type;
        cost += selectionCost(condition, fragment.selectionSet, new Set([...seen, name]), edges);
      }
    }
    return cost;
  }

  return (operation: OperationDefinitionNode): number | null => {
    const schema = document.getSchema();
    const root =
      operation.operation === 'query'
        ? schema.getQueryType()
        : operation.operation === 'mutation'
          ? schema.getMutationType()
          : schema.getSubscriptionType();
    return root ? selectionCost(root, operation.selectionSet, new Set()) : null;
  };
}

/** Each operation's cost, reported to `onCost` (the rule of query-limits.ts compares it with the limit). */
export const queryCostRule =
  (onCost: (context: ValidationContext, cost: number) => void) =>
  (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation) {
      const cost = costOf(context)(operation);
      if (cost !== null) onCost(context, cost);
      return false;
    },
  });

/** An operation's cost counted with its variables (what `_entities` is given), as a resolver sees it. */
export const executionCost = (
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
): number =>
  costOf({ getSchema: () => schema, getFragment: (name) => fragments[name] }, variables)(operation) ?? 0;

/** The refusal of a query that costs more than `max`. */
export const costError = (max: number, cost: number) =>
  new GraphQLError(`Query cost limit of ${max} exceeded, found ${cost}.`);
