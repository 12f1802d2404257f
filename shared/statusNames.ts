/**
 * The schema of a profile's status code names (shared/statusCodes.ts, which this module
 * re-exports): what `saveProfile` accepts.
 *
 * Pure module: zod and other shared/ files only.
 */
import { z } from 'zod';
import { MAX_STATUS_NAME_LENGTH, MAX_STATUS_NAMES, STATUS_CODE_KEY, STATUS_COLOURS } from './statusCodes.ts';

export * from './statusCodes.ts';

const statusNameSchema = z
  .object({
    name: z.string().trim().min(1, 'a status name cannot be empty').max(MAX_STATUS_NAME_LENGTH, `a status name is at most ${MAX_STATUS_NAME_LENGTH} characters`),
    colour: z.enum(STATUS_COLOURS),
  })
  .strict();

/** The names of a profile's status codes, as a person enters them. */
export const statusNamesSchema = z
  .record(z.string().regex(STATUS_CODE_KEY, 'a status code is a whole number such as 3 or -1'), statusNameSchema)
  .refine((names) => Object.keys(names).length <= MAX_STATUS_NAMES, `at most ${MAX_STATUS_NAMES} status codes can be named`);
