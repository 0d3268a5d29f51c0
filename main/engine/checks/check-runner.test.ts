import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../shared/checks';
import { failedChecksMessage, tellingLine } from './check-runner';

describe('the line that summarises a failed check', () => {
  it('is the last line that reads like an error, not the brace that closes a JSON dump', () => {
    const output = ['> demo@1.0.0 test', 'AssertionError: expected "Hi, Ada!" but got "Hello, Ada!"', '{', '  "got": "Hello, Ada!",', '  "want": "Hi, Ada!"', '}', ''].join('\n');
    expect(tellingLine(output)).toBe('AssertionError: expected "Hi, Ada!" but got "Hello, Ada!"');
    const result = { name: 'the tests pass', refused: null, timedOut: false, exitCode: 1, outputTail: output } as unknown as CheckResult;
    expect(failedChecksMessage([result])).toBe('check failed: "the tests pass" exited with status 1: AssertionError: expected "Hi, Ada!" but got "Hello, Ada!"');
  });

  it('is the last line with words when none reads like an error, and nothing when no line has words', () => {
    expect(tellingLine('checking README.md\nno licence section\n]\n')).toBe('no licence section');
    expect(tellingLine('}\n]\n')).toBeUndefined();
  });
});
