/**
 * Follows a check while it runs (docs/web.md): on a result page that is queued, checking or scoring,
 * reads the result's JSON every few seconds and reloads the page when its state or place in the
 * queue changes, so a visitor who asked for a check sees it end without reloading by hand. Without
 * the script the page says to reload, and works the same.
 */
const region = document.querySelector<HTMLElement>('[data-check-progress]');
const source = region?.dataset.checkProgress;
if (region && source && source.startsWith('/b/')) {
  const shown = { state: region.dataset.state ?? '', position: region.dataset.position ?? '' };
  const started = Date.now();
  const poll = async (): Promise<void> => {
    try {
      const answer = await fetch(source, { headers: { accept: 'application/json' }, cache: 'no-store' });
      if (answer.ok) {
        const result = (await answer.json()) as { state?: string; queue?: { position?: number } };
        const position = result.queue?.position === undefined ? '' : String(result.queue.position);
        if (result.state !== shown.state || position !== shown.position) {
          window.location.reload();
          return;
        }
      }
    } catch {
      // A missed poll is tried again on the next turn.
    }
    // A check ends within a minute or two; a page left open stops asking after ten.
    if (Date.now() - started < 600_000) window.setTimeout(() => void poll(), 3_000);
  };
  window.setTimeout(() => void poll(), 2_000);
}
export {};
