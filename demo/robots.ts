// robots.txt variants a council system may serve (RFC 9309 and the ways servers get it wrong).
import type { RobotsScript } from './types';

export const ROBOTS_ALLOW_ALL = 'User-agent: *\nAllow: /\n';

/** Ready-made scripts for `setRobots`; each names the situation it stands for. */
export const robotsScripts = {
  allowAll: { body: ROBOTS_ALLOW_ALL },
  disallowAll: { body: 'User-agent: *\nDisallow: /\n' },
  /** Our group applies instead of `*` (ROB-1), so this blocks us while others may crawl. */
  disallowIngestor: { body: 'User-agent: mandari-ingestor\nDisallow: /\n\nUser-agent: *\nAllow: /\n' },
  disallowFiles: { body: 'User-agent: *\nDisallow: /files/\n' },
  crawlDelay: (seconds: number): RobotsScript => ({
    body: `User-agent: mandari-ingestor\nCrawl-delay: ${seconds}\nAllow: /\n`,
  }),
  /** Any 4xx means "no robots.txt" (ROB-6). */
  notFound: { status: 404, body: 'Not Found', contentType: 'text/plain; charset=utf-8' },
  /** 5xx means "unreachable" (ROB-7). */
  unavailable: { status: 503, body: 'Service Unavailable', headers: { 'retry-after': '120' } },
  /** A CMS answering every path with its start page. */
  html: {
    contentType: 'text/html; charset=utf-8',
    body: '<!doctype html><html><head><title>Startseite</title></head><body><h1>Willkommen</h1></body></html>',
  },
  redirect: (location: string, status = 301): RobotsScript => ({
    status,
    body: '',
    headers: { location },
  }),
} satisfies Record<string, RobotsScript | ((...args: never[]) => RobotsScript)>;
