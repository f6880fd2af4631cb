/** Reads a site owner's choice for its check result: /.well-known/svc-check.json with {"result": "hidden" | "shown"}. One request, through the same safe fetcher. */
import { OWNER_FILE } from './site-check.js';
import { SiteFetcher, type CrawlerSettings } from './site-fetcher.js';

export async function readOwnerChoice(domain: string, settings: CrawlerSettings): Promise<'hidden' | 'shown' | null> {
  const fetcher = new SiteFetcher(domain, { ...settings, maxRequestsPerSite: 4, checkDeadlineMs: 10_000 });
  try {
    const answer = await fetcher.get(OWNER_FILE, { maxBytes: 4 * 1024 });
    if (!answer.ok || answer.status !== 200) return null;
    const choice = (JSON.parse(answer.body) as { result?: unknown }).result;
    return choice === 'hidden' || choice === 'shown' ? choice : null;
  } catch {
    return null;
  }
}
