import type { Plugin } from '@envelop/core';
import type { ExecutionArgs, ExecutionResult } from 'graphql';
import { TOOK_TOO_LONG, withDeadline } from '../../common/deadline.ts';
import { refusal } from '../errors.ts';
import type { OperationContext } from './operation-context.ts';

const timedOut = (): ExecutionResult => ({
  errors: [refusal('unavailable', TOOK_TOO_LONG, { 'Retry-After': '5' })],
});

type Outcome = ExecutionResult | AsyncIterable<ExecutionResult>;

/**
 * Each operation's run, whatever brought it: within the deadline (answered 503 with Retry-After when it
 * passes; on PostgreSQL, statement_timeout stops its statements) and counted in the metrics. A subscription's
 * run is its setup (the subscribe resolver, the per-account cap). It wraps whichever execution function the
 * plugins before it chose, so it comes after them.
 */
export function useOperationRun(options: {
  timeoutMs: number;
  record?(name: string | undefined, type: string, seconds: number): void;
}): Plugin<OperationContext> {
  function run(args: ExecutionArgs, work: () => Outcome | Promise<Outcome>): Promise<Outcome> {
    const { operation } = args.contextValue as OperationContext;
    const type = operation.operation;
    const name = operation.name?.value;
    const started = performance.now();
    const finished = withDeadline(work(), options.timeoutMs);
    const counted = (result: Outcome | null) => {
      options.record?.(name, type, (performance.now() - started) / 1000);
      return result ?? timedOut();
    };
    return finished instanceof Promise ? finished.then(counted) : Promise.resolve(counted(finished));
  }
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => run(args, () => executeFn(args) as Outcome | Promise<Outcome>));
    },
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn((args) => {
        const subscribing = Promise.resolve(subscribeFn(args) as Outcome | Promise<Outcome>);
        return run(args, () => subscribing).then((outcome) => {
          // Past the deadline, a stream that opens after all is ended at once: nobody will read it.
          if (!(Symbol.asyncIterator in outcome))
            void subscribing.then((late) => {
              if (Symbol.asyncIterator in late) void (late as AsyncGenerator).return?.(undefined);
            });
          return outcome;
        });
      });
    },
  };
}
