import { z } from 'zod';
import { ROLES } from './account.entity.ts';

/** Names go into HTTP Basic credentials, so no colon; kept to characters that survive any terminal. */
export const accountName = z
  .string()
  .regex(/^[A-Za-z0-9._@-]{1,64}$/, 'must be 1 to 64 letters, digits or . _ @ -')
  .meta({ maxLength: 64 });

export const password = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(1024, 'must be at most 1024 characters')
  .refine(
    (value) => value.isWellFormed() && !value.includes('\u0000'),
    'must be valid Unicode text without NUL',
  );

export const createAccountSchema = z.object({
  name: accountName,
  role: z.enum(ROLES),
  password,
});

export type NewAccount = z.infer<typeof createAccountSchema>;
