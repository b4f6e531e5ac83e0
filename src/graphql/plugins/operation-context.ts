import type { OperationDefinitionNode } from 'graphql';
import type { RequestContext } from '../../context.ts';

/**
 * An operation's context as the engine's plugins see it: the request's (src/context.ts), and what the runner
 * (src/graphql/operations.ts) knows of how the operation came.
 */
export interface OperationContext extends RequestContext {
  /** The document is the service's own or a trusted document's: the trusted-documents rule lets it run. */
  trustedDocument: boolean;
  /** The transport can deliver a result in parts (@defer, @stream); otherwise they are ignored. */
  incremental: boolean;
  /** The operation of the document to run, as the engine found it (by its name, or the only one). */
  operation: OperationDefinitionNode;
}
