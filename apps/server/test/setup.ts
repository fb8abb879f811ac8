import { afterEach, beforeEach, expect, vi } from 'vitest';

// A test fails on an unexpected console.error: silent failures are still failures.
let errors: unknown[][] = [];
beforeEach(() => {
  errors = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    errors.push(args);
  });
});
afterEach(() => {
  vi.mocked(console.error).mockRestore();
  expect(errors, 'unexpected console.error').toEqual([]);
});
