import {
  type FieldNode,
  type GraphQLResolveInfo,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

type Fragments = GraphQLResolveInfo['fragments'];

// Per field node of a cached document (yoga's parser cache keeps and reuses its nodes), the
// answer for each path asked: the walk is made once per document, not once per request.
const answers = new WeakMap<FieldNode, Map<readonly string[], boolean>>();

/**
 * Whether the query selects `path` (field names, one per level) below the field being resolved, through
 * inline fragments and fragment spreads. @skip and @include are not read: at worst the answer is a yes for
 * a field that is then skipped, and the read it leads to brings something unused. Answers are kept by
 * `path` itself: pass a constant.
 */
export function selects(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>, path: readonly string[]) {
  const [first] = info.fieldNodes;
  if (!first) return false;
  let known = answers.get(first);
  if (!known) {
    known = new Map();
    answers.set(first, known);
  }
  let answer = known.get(path);
  if (answer === undefined) {
    answer = info.fieldNodes.some((node) => selectsIn(node.selectionSet, path, info.fragments));
    known.set(path, answer);
  }
  return answer;
}

const rootAnswers = new WeakMap<OperationDefinitionNode, Map<string, boolean>>();

/**
 * Whether the operation also selects the root field `name` (through fragments): a list resolver learns that
 * its count is asked beside it. Kept per operation node, as `selects` keeps its answers.
 */
export function operationSelects(info: Pick<GraphQLResolveInfo, 'operation' | 'fragments'>, name: string) {
  let known = rootAnswers.get(info.operation);
  if (!known) {
    known = new Map();
    rootAnswers.set(info.operation, known);
  }
  let answer = known.get(name);
  if (answer === undefined) {
    answer = selectsIn(info.operation.selectionSet, [name], info.fragments);
    known.set(name, answer);
  }
  return answer;
}

function selectsIn(
  set: SelectionSetNode | undefined,
  path: readonly string[],
  fragments: Fragments,
): boolean {
  if (!set || path.length === 0) return path.length === 0;
  const [name, ...rest] = path;
  return set.selections.some((selection) => {
    if (selection.kind === Kind.FIELD)
      return (
        selection.name.value === name &&
        (rest.length === 0 || selectsIn(selection.selectionSet, rest, fragments))
      );
    if (selection.kind === Kind.INLINE_FRAGMENT) return selectsIn(selection.selectionSet, path, fragments);
    return selectsIn(fragments[selection.name.value]?.selectionSet, path, fragments);
  });
}
