import { withinArgument } from '../graphql/argument-errors.ts';
import { builder } from '../graphql/builder.ts';
import { globalId, NodeInterface } from '../graphql/node.ts';
import type { Role } from './account.entity.ts';
import { accountName, createAccountSchema } from './accounts.rules.ts';
import { createAccount, deleteAccountAs, unlockAccount } from './accounts.service.ts';
import type { Principal } from './authenticator.ts';

export const RoleEnum = builder.enumType('Role', {
  description:
    'visitor: reads hours and events, buys tickets and orders, reads and cancels its own; gate: a door scanner that checks tickets in and reads tickets, nothing else; staff: everything.',
  values: {
    visitor: {
      value: 'visitor',
      description: 'Reads hours and events, buys tickets and orders, reads and cancels its own.',
    },
    staff: { value: 'staff', description: 'May do everything.' },
    gate: {
      value: 'gate',
      description: 'A door scanner: checks tickets in and reads tickets, nothing else.',
    },
  } satisfies Record<Role, { value: Role; description: string }>,
});

export const AccountType = builder.objectRef<Principal>('Account').implement({
  description: 'An account that signs in with HTTP Basic credentials.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id({ description: 'Global id (Node).', resolve: (account) => globalId('Account', account.id) }),
    name: t.exposeString('name', { description: 'The name it signs in with.' }),
    role: t.expose('role', { type: RoleEnum, description: 'What it may do.' }),
  }),
});

export const CreateAccountInput = builder.inputType('CreateAccountInput', {
  description: 'A new account: its name, its role and its password.',
  fields: (t) => ({
    name: t.string({ description: '1 to 64 letters, digits or . _ @ -' }),
    role: t.field({ type: RoleEnum, description: 'What it may do.' }),
    password: t.string({ description: '8 to 1024 characters.' }),
  }),
  validate: createAccountSchema,
});

builder.queryField('me', (t) =>
  t.field({
    type: AccountType,
    description: 'The account whose credentials came with the request.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, { principal }) => principal!,
  }),
);

builder.mutationFields((t) => ({
  createAccount: t.field({
    type: AccountType,
    description: 'Creates an account (staff only).',
    authScopes: { staff: true },
    args: { input: t.arg({ type: CreateAccountInput, description: 'The account to create.' }) },
    resolve: (_root, { input }, { deps }) => withinArgument('input', () => createAccount(deps.db.sql, input)),
  }),
  unlockAccount: t.boolean({
    description:
      'Clears the failed-login counters of an account (staff only): a lock-out of it from any address ends at once, on every instance. True when there was something to clear.',
    authScopes: { staff: true },
    args: {
      name: t.arg.string({ validate: accountName, description: 'The name of the account to unlock.' }),
    },
    resolve: (_root, { name }, { deps, principal }) =>
      unlockAccount(deps.throttle, deps.logger, principal!, name),
  }),
  deleteAccount: t.boolean({
    description: 'Deletes an account (staff only); its credentials stop working at once. Its tickets stay.',
    authScopes: { staff: true },
    args: {
      name: t.arg.string({ validate: accountName, description: 'The name of the account to delete.' }),
    },
    resolve: (_root, { name }, { deps, principal }) =>
      deleteAccountAs(deps.db.sql, principal!, name, deps.authenticator),
  }),
}));
