/**
 * Names for the integer order status codes (§2.3 `status`). §3 gives the codes no meaning, so each
 * profile may name them: code → a name and a colour from a small fixed palette, which the page maps
 * to its theme's colours. An unnamed code reads "Status N" everywhere (tables, filters, details,
 * CSV exports), so a name is only ever added, never guessed.
 *
 * Pure module: zod only.
 */
import { z } from 'zod';
import { STATUS_COLOURS } from './statusNameText.ts';

export { STATUS_COLOURS, statusName, type StatusColour, type StatusName, type StatusNames } from './statusNameText.ts';

/** Most codes a profile can name. */
export const MAX_STATUS_NAMES = 100;

/** A status code as a key: a decimal integer of at most 9 digits, no leading zeros, "-0" not allowed. */
export const STATUS_CODE_KEY = /^(0|-?[1-9]\d{0,8})$/;

const statusNameSchema = z
  .object({
    name: z.string().trim().min(1, 'a status name cannot be empty').max(60, 'a status name is at most 60 characters'),
    colour: z.enum(STATUS_COLOURS),
  })
  .strict();

/** The names of a profile's status codes, as a person enters them. */
export const statusNamesSchema = z
  .record(z.string().regex(STATUS_CODE_KEY, 'a status code is a whole number such as 3 or -1'), statusNameSchema)
  .refine((names) => Object.keys(names).length <= MAX_STATUS_NAMES, `at most ${MAX_STATUS_NAMES} status codes can be named`);
