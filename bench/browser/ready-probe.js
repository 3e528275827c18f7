// Installed in the app's page before its scripts (Playwright `addInitScript`).
// Plain JavaScript on purpose: functions that tsx compiles carry `__name`
// helpers the page does not have.
//
// On every frame, checks whether `expected` flow nodes are drawn and visible
// (React Flow hides a node until it is measured); then posts a task and, when
// that task runs (no long task in the way: the editor answers), records
// `performance.now()` — ms since navigation start — on `window[key]`.
/* global window, document, getComputedStyle, requestAnimationFrame, MessageChannel, performance, __FLOWBENCH_PROBE__ */
(function readyProbe([expected, key]) {
  if (window.top !== window) return;
  const drawn = () => {
    const nodes = document.querySelectorAll('[data-testid^="node-"]');
    if (nodes.length < expected) return false;
    for (const node of nodes) {
      const wrapper = node.closest('.react-flow__node') ?? node;
      if (getComputedStyle(wrapper).visibility === 'hidden') return false;
    }
    return true;
  };
  const tick = () => {
    if (!drawn()) {
      requestAnimationFrame(tick);
      return;
    }
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      window[key] = performance.now();
    };
    channel.port2.postMessage(null);
  };
  requestAnimationFrame(tick);
})(__FLOWBENCH_PROBE__);
