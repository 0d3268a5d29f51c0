/**
 * Measuring code that runs in the console's page, installed with `page.addInitScript`. It is a
 * string, not a function: tsx's transform would add helpers that do not exist in the page.
 *
 * "Painted" means: the frame in which the DOM first held what we wait for has been rendered. We
 * look in a requestAnimationFrame callback (which runs just before that frame's style, layout and
 * paint) and take the time in a message task posted from it, which runs after the frame's rendering.
 */
export const PAGE_PROBE = String.raw`
(() => {
  const afterThisFrame = (callback) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => callback(performance.now());
    channel.port2.postMessage(0);
  };

  let lastClick = null;
  document.addEventListener('click', (event) => { lastClick = event.timeStamp; }, { capture: true });

  window.__bench = {
    /** Resolves with ms from the next click to the paint of the frame in which the selector matched. */
    watchPaint(selector, timeoutMs) {
      lastClick = null;
      return new Promise((resolve, reject) => {
        const started = performance.now();
        const check = () => {
          if (lastClick !== null && document.querySelector(selector)) {
            const clicked = lastClick;
            afterThisFrame((painted) => resolve(painted - clicked));
            return;
          }
          if (performance.now() - started > timeoutMs) return reject(new Error('not painted within ' + timeoutMs + ' ms: ' + selector));
          requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      });
    },

    /**
     * Scrolls the element by step px in every animation frame for frames frames (turning round at
     * either end), marking each frame ('bench-frame', for a trace to cut the main thread's time at),
     * and returns the intervals between consecutive frames' rAF timestamps.
     */
    scrollFrames(selector, frames, step) {
      const element = document.querySelector(selector);
      if (!element) return Promise.reject(new Error('no element ' + selector));
      return new Promise((resolve) => {
        const intervals = [];
        let previous = null;
        let direction = 1;
        let n = 0;
        const frame = (timestamp) => {
          performance.mark('bench-frame');
          if (previous !== null) intervals.push(timestamp - previous);
          previous = timestamp;
          const max = element.scrollHeight - element.clientHeight;
          if ((direction > 0 && element.scrollTop + step > max) || (direction < 0 && element.scrollTop - step < 0)) direction = -direction;
          element.scrollTop += direction * step;
          if (++n < frames) requestAnimationFrame(frame);
          else setTimeout(() => resolve({ intervals }), 50);
        };
        requestAnimationFrame(frame);
      });
    },

    /** How far the page's high-resolution wall clock (timeOrigin + now) is ahead of Date.now(). */
    clockOffset() {
      const samples = [];
      for (let i = 0; i < 201; i++) samples.push(performance.timeOrigin + performance.now() - Date.now());
      samples.sort((a, b) => a - b);
      return samples[100];
    },

    /**
     * Calls onChange whenever the attribute of the element changes, with a function that records the
     * wall-clock time the change is painted. A MutationObserver sees the change as React commits it.
     * If that happened inside a frame's animation callbacks (the app applies events there), the
     * frame's style, layout and paint follow in the same task, so a message posted now runs right
     * after the paint; otherwise the change is painted in the next frame. (Polling in our own rAF
     * would see a change made by a later rAF callback of the same frame only one frame late.)
     * Returns a function that stops watching.
     */
    watchPaints(element, attribute, onChange) {
      let inFrame = false;
      let running = true;
      const frameLoop = () => {
        if (!running) return;
        inFrame = true;
        afterThisFrame(() => { inFrame = false; });
        requestAnimationFrame(frameLoop);
      };
      requestAnimationFrame(frameLoop);
      const observer = new MutationObserver(() => {
        onChange((record) => {
          const painted = (now) => { record.painted = performance.timeOrigin + now; };
          if (inFrame) afterThisFrame(painted);
          else requestAnimationFrame(() => afterThisFrame(painted));
        });
      });
      observer.observe(element, { attributes: true, attributeFilter: [attribute] });
      return () => { running = false; observer.disconnect(); };
    },

    /** Follows the event log: each change of its last seq, with the "N of M events" count and when it was painted. */
    startStream() {
      const frames = [];
      const log = document.querySelector('[data-testid="event-log"]');
      const stop = this.watchPaints(log, 'data-last-seq', (whenPainted) => {
        const seq = Number(log.getAttribute('data-last-seq'));
        if (frames.length > 0 && frames[frames.length - 1].seq === seq) return;
        const text = document.querySelector('[data-testid="event-count"]')?.textContent ?? '';
        const match = /of (\d+) events/.exec(text);
        const record = { seq, count: match ? Number(match[1]) : -1, painted: 0 };
        frames.push(record);
        whenPainted(record);
      });
      window.__benchStream = () => { stop(); return frames; };
    },
    stopStream() {
      return window.__benchStream();
    },

    /** Follows the open changes list the same way: each change of its number of rows, and when it was painted. */
    startChanges() {
      const frames = [];
      const list = document.querySelector('[data-testid="change-list"]');
      const stop = this.watchPaints(list, 'data-count', (whenPainted) => {
        const count = Number(list.getAttribute('data-count'));
        if (frames.length > 0 && frames[frames.length - 1].count === count) return;
        const record = { count, painted: 0 };
        frames.push(record);
        whenPainted(record);
      });
      window.__benchChanges = () => { stop(); return frames; };
    },
    stopChanges() {
      return window.__benchChanges();
    },

    /** Follows one row of the open tree the same way: each change of its count of calls run, and when it was painted. */
    startCalls(decisionId) {
      const frames = [];
      const row = document.querySelector('[data-testid="decision-row"][data-decision-id="' + decisionId + '"]');
      const stop = this.watchPaints(row, 'data-ran', (whenPainted) => {
        const ran = Number(row.getAttribute('data-ran'));
        if (frames.length > 0 && frames[frames.length - 1].ran === ran) return;
        const record = { ran, painted: 0 };
        frames.push(record);
        whenPainted(record);
      });
      window.__benchCalls = () => { stop(); return frames; };
    },
    stopCalls() {
      return window.__benchCalls();
    },
  };
})();
`;
