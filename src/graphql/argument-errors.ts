import { DomainError } from '../common/errors.ts';

/**
 * Services name fields as their input spells them (`ticketDate`); GraphQL clients sent them inside an
 * argument (`input.ticketDate`). This puts the argument's name in front of the paths an error names.
 */
export async function withinArgument<T>(argument: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof DomainError) || (error.kind !== 'validation' && error.issues.length === 0))
      throw error;
    const issues = error.issues.map((issue) => ({
      ...issue,
      path: issue.path ? `${argument}.${issue.path}` : argument,
    }));
    throw new DomainError(error.kind, error.message, issues);
  }
}
