import { describe, expect, it } from 'vitest';
import { PlanFileSchema } from './domain';
import { parseOrThrow } from './errors';
import { GitSourceSchema, gitUrlProblem, refNameProblem } from './git-source';
import { redactText, redactUrl } from './redact';

const plan = (project: unknown) => ({ name: 'p', definitionOfDone: '- done', project });

describe('a plan file names its project as a folder or a git repository', () => {
  it('takes a folder path as before, and { git, ref } for file, https, ssh and scp-like URLs', () => {
    expect(PlanFileSchema.parse(plan('../demo')).project).toBe('../demo');
    for (const git of ['file:///srv/git/demo.git', 'https://github.com/team/demo.git', 'ssh://git@host:2222/team/demo.git', 'git@github.com:team/demo.git']) {
      expect(PlanFileSchema.parse(plan({ git, ref: 'main' })).project).toEqual({ git, ref: 'main' });
    }
    expect(PlanFileSchema.parse(plan({ git: 'https://host/r.git' })).project).toEqual({ git: 'https://host/r.git' });
  });

  it('refuses other schemes, non-URLs, bad refs and unknown fields, in one line naming the field', () => {
    const problem = (project: unknown) => {
      try {
        parseOrThrow(PlanFileSchema, plan(project));
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(problem({ git: 'http://host/r.git', ref: 'main' })).toBe('project.git: scheme http is not one of file, https, ssh (or user@host:path)');
    expect(problem({ git: 'git://host/r.git' })).toContain('scheme git is not one of');
    expect(problem({ git: '/srv/git/r.git' })).toBe('project.git: is not a URL: use file://, https://, ssh:// or user@host:path');
    expect(problem({ git: 'https://host/r.git', ref: '--upload-pack=evil' })).toBe('project.ref: must not start with "-"');
    expect(problem({ git: 'https://host/r.git', ref: 'a b' })).toContain('project.ref: must not contain spaces');
    expect(problem({ git: 'https://host/r.git', branch: 'main' })).toContain('branch');
  });
});

describe('refNameProblem', () => {
  it('refuses what would look like an option to git, and the empty name', () => {
    expect(GitSourceSchema.safeParse({ git: 'https://h/r', ref: '-x' }).success).toBe(false);
    expect(refNameProblem('')).not.toBeNull();
  });
});

describe('credentials never shown', () => {
  it('drops the password of a URL and of URLs in git output', () => {
    expect(redactUrl('https://bob:s3cret@host/r.git')).toBe('https://bob@host/r.git');
    expect(redactUrl('git@github.com:team/r.git')).toBe('git@github.com:team/r.git');
    expect(redactText("fatal: unable to access 'https://bob:s3cret@host/r.git/': refused")).toBe("fatal: unable to access 'https://bob:***@host/r.git/': refused");
    expect(gitUrlProblem('https://bob:s3cret@host/r.git')).toBe('must not contain a password or token; use an SSH key or a git credential helper');
    expect(gitUrlProblem('https://bob@host/r.git')).toBeNull();
  });
});
