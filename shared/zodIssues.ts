/**
 * Validation failures in words. Whatever refuses an input against a zod schema (the IPC dispatch,
 * the CSV export) says what was wrong the same way, in a message a person can act on.
 */

/** One problem zod found: where in the input (a path of keys) and what. */
export interface ValidationIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** Longest description of one issue (characters); messages never echo a huge input back. */
const MAX_ISSUE_CHARS = 200;

/**
 * Summarises the first five issues as "path: message; …" ("input" when the path is empty).
 * @param error a zod error (`z.ZodError`), or anything with its `issues`
 */
export function describeIssues(error: { readonly issues: readonly ValidationIssue[] }): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => clip(`${issue.path.length > 0 ? issue.path.map(String).join('.') : 'input'}: ${issue.message}`, MAX_ISSUE_CHARS))
    .join('; ');
}

/** Cuts text to `max` characters. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
