import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { makeEntry, reviewOf } from '../test-support/fake-bridge';
import { FileRow } from './FileRow';

describe('the file row', () => {
  const row = (origin?: 'operator') => {
    const [file] = reviewOf([makeEntry('e1', 'README.md', origin ? { origin } : {})]);
    const noop = () => undefined;
    return renderToStaticMarkup(<FileRow file={file} selected={false} included canApply partlyIncluded={false} conflict={false} onSelect={noop} onToggle={noop} />);
  };

  it('says "Edited by you" on a file the operator changed by hand, and only there', () => {
    expect(row('operator')).toContain('Edited by you');
    expect(row()).not.toContain('Edited by you');
  });
});
