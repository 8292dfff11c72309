// The plan page's live updates: long-polls /app/plans/{id}/live with the version the page shows;
// the server answers once the plan changed (204 when it did not) with the new live part, which
// replaces the old one. That HTML is rendered and escaped by the server exactly as the page was.
// Without JavaScript the page still shows the plan as it was when loaded.

const root = document.getElementById('plan-live');
const status = document.getElementById('live-status');

async function follow() {
  let failures = 0;
  for (;;) {
    try {
      const url = `${root.dataset.liveUrl}?v=${encodeURIComponent(root.dataset.version)}`;
      const answer = await fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (answer.status === 200) {
        root.innerHTML = await answer.text();
        root.dataset.version = answer.headers.get('x-plan-version') ?? '';
        status.textContent = `Updated ${new Date().toLocaleTimeString()}.`;
      } else if (answer.status !== 204) throw new Error(`live update answered ${answer.status}`);
      failures = 0;
      // The server holds a request until the plan changes; a quick answer still waits a moment.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } catch {
      failures += 1;
      status.textContent = 'Live updates paused: reload the page to see the latest.';
      await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 1000 * 2 ** failures)));
    }
  }
}

if (root && status) void follow();
