import type { Page } from '@playwright/test';

/**
 * What an operator would see wrong in the page as it is now, one line each:
 * - a control cut off by a box that clips it, or sticking out of the bordered box it sits in;
 * - text cut short (an ellipsis, or overflow hidden) while the row it sits in has room for it;
 * - a heading with nothing under it.
 * Scrolling boxes are fine: what they hide can be scrolled to.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const SLACK = 1.5;

    const visible = (el: Element): boolean => {
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.display === 'none' || Number(style.opacity) === 0) return false;
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    };
    const label = (el: Element): string => {
      const text = (el.getAttribute('aria-label') ?? (el as HTMLElement).innerText ?? el.textContent ?? '').trim().replace(/\s+/g, ' ');
      const name = `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
      return `${name} "${text.slice(0, 60)}"`;
    };
    const scrolls = (style: CSSStyleDeclaration, axis: 'x' | 'y') => /auto|scroll/.test(axis === 'x' ? style.overflowX : style.overflowY);
    const clips = (style: CSSStyleDeclaration, axis: 'x' | 'y') => /hidden|clip/.test(axis === 'x' ? style.overflowX : style.overflowY);
    const bordered = (style: CSSStyleDeclaration) =>
      ['Top', 'Right', 'Bottom', 'Left'].filter((side) => parseFloat(style.getPropertyValue(`border-${side.toLowerCase()}-width`)) > 0).length >= 3;

    // Controls: inside every box that clips them or draws a border around them, up to the first that scrolls.
    const controls = document.querySelectorAll('button, input:not([type="hidden"]), select, textarea, a[href], [role="tab"], [role="checkbox"]');
    for (const control of controls) {
      if (!visible(control) || control.closest('[aria-hidden="true"], .cm-editor')) continue;
      const box = control.getBoundingClientRect();
      const axes = { x: true, y: true };
      for (let parent = control.parentElement; parent && parent !== document.body && (axes.x || axes.y); parent = parent.parentElement) {
        const style = getComputedStyle(parent);
        const outer = parent.getBoundingClientRect();
        const outX = box.left < outer.left - SLACK || box.right > outer.right + SLACK;
        const outY = box.top < outer.top - SLACK || box.bottom > outer.bottom + SLACK;
        const boxed = bordered(style) && style.position !== 'static' ? true : bordered(style);
        if (axes.x && outX && (clips(style, 'x') || boxed) && !scrolls(style, 'x')) {
          problems.push(`control ${clips(style, 'x') ? 'cut off by' : 'outside'} ${label(parent).slice(0, 50)}: ${label(control)}`);
          break;
        }
        if (axes.y && outY && (clips(style, 'y') || boxed) && !scrolls(style, 'y')) {
          problems.push(`control ${clips(style, 'y') ? 'cut off by' : 'outside'} ${label(parent).slice(0, 50)}: ${label(control)}`);
          break;
        }
        if (scrolls(style, 'x')) axes.x = false;
        if (scrolls(style, 'y')) axes.y = false;
      }
      // Up to the page itself: the window scrolls down, never sideways.
      if (axes.x && (box.left < -SLACK || box.right > window.innerWidth + SLACK)) problems.push(`control outside the window: ${label(control)}`);
    }

    // Text cut short while its row has room: given its full width, it would still fit, with nothing
    // beside it made narrower (tried on the page, then undone).
    const rowOf = (el: Element): HTMLElement | null => {
      for (let parent = el.parentElement, depth = 0; parent && parent !== document.body && depth < 3; parent = parent.parentElement, depth++) {
        const style = getComputedStyle(parent);
        if (scrolls(style, 'x')) return null;
        if (style.display.includes('flex') && !style.flexDirection.startsWith('column') && style.flexWrap === 'nowrap') return parent;
      }
      return null;
    };
    const wouldFit = (el: HTMLElement, row: HTMLElement): boolean => {
      const others = [...row.querySelectorAll<HTMLElement>('*')].filter((o) => o !== el && !el.contains(o) && !o.contains(el));
      const before = others.map((o) => o.offsetWidth);
      const saved = el.style.cssText;
      el.style.flexShrink = '0';
      el.style.minWidth = `${el.scrollWidth}px`;
      const fits = row.scrollWidth <= row.clientWidth + 1 && others.every((o, i) => o.offsetWidth >= before[i] - 1);
      el.style.cssText = saved;
      return fits;
    };
    for (const el of document.querySelectorAll('body *')) {
      if (!(el instanceof HTMLElement) || !visible(el) || el.closest('.cm-editor, [aria-hidden="true"]')) continue;
      const style = getComputedStyle(el);
      if (!(style.textOverflow === 'ellipsis' || clips(style, 'x')) || scrolls(style, 'x')) continue;
      if (el.scrollWidth <= el.clientWidth + 1 || !el.innerText.trim() || el.clientWidth <= 2) continue;
      const row = rowOf(el);
      if (row && wouldFit(el, row)) problems.push(`text cut short beside free room (lacks ${el.scrollWidth - el.clientWidth}px): ${label(el)}`);
    }

    // A heading with nothing under it: nothing visible follows it in its section (a wrapper that holds only
    // the heading, like a sheet's head, counts as the heading).
    const shown = (c: Element) =>
      visible(c) && (Boolean((c as HTMLElement).innerText?.trim()) || c.matches('img, svg, canvas, input, button, textarea, select') || Boolean(c.querySelector('img, svg, canvas, input, button, textarea, select')));
    for (const heading of document.querySelectorAll('h2, h3, h4, h5, [role="heading"]')) {
      if (!visible(heading)) continue;
      let node: Element = heading;
      for (let depth = 0; depth < 3 && node.parentElement && node.parentElement !== document.body; depth++) {
        if ([...node.parentElement.children].filter(shown).length > 1) break;
        node = node.parentElement;
      }
      const after: Element[] = [];
      for (let next = node.nextElementSibling; next; next = next.nextElementSibling) after.push(next);
      const before: Element[] = [];
      for (let previous = node.previousElementSibling; previous; previous = previous.previousElementSibling) before.push(previous);
      // A heading after other content is a row's title (a header with its buttons), not a section's.
      if (node.parentElement && node.parentElement !== document.body && !before.some(shown) && !after.some(shown)) problems.push(`heading with nothing under it: ${label(heading)}`);
    }
    return [...new Set(problems)];
  });
}
