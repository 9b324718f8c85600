import { SlotOptionsError } from './errors';

/**
 * The key of a host's pace: hostname, lower-cased, without port or scheme (SPEC: "Server / host").
 * `https://RIS.example.de:443/x`, `http://ris.example.de:8443/` and `ris.example.de.` share one pace,
 * as they share one robots.txt (ROB-5). International names are keyed in their ASCII (punycode) form.
 */
export function hostKey(input: string | URL): string {
  let hostname: string;
  try {
    if (input instanceof URL) hostname = input.hostname;
    else {
      const raw = input.trim();
      hostname = new URL(raw.includes('://') ? raw : `http://${raw}`).hostname;
    }
  } catch {
    throw new SlotOptionsError(`not a host or URL: ${JSON.stringify(String(input))}`);
  }
  // The URL parser lower-cases and strips the port; a trailing dot names the same DNS host.
  const key = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (key === '') throw new SlotOptionsError(`no hostname in ${JSON.stringify(String(input))}`);
  return key;
}
