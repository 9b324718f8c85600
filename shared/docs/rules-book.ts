import { DAY_MS, HOUR_MS, MINUTE_MS } from '../util';
import type { RulesConstants } from './rules-constants';
import { quietSequence, sparingSequence } from './rules-page';

/**
 * docs/rules.md, the project's rule book in English: every numbered fetch rule in our own words, where
 * the code keeps it and which tests prove it. Like the German page (rules-page.ts) every number comes
 * from a `RulesConstants` object, so the book cannot state a number the code does not keep;
 * test/docs/rules-book.test.ts regenerates it, compares, and checks the homes below against the code
 * and the tests. Pure: the same constants give the same book, byte for byte.
 */

/** Where a rule lives: modules that keep it and tests that cite its ID (paths from the repository root). */
export interface RuleHome {
  modules: readonly string[];
  tests: readonly string[];
}

/** A rule the project has written down but not built yet; the book says so instead of naming tests. */
export const NOT_YET = 'not yet implemented' as const;

export interface BookRule {
  id: string;
  text: string;
  home: RuleHome | typeof NOT_YET;
}

export interface BookSection {
  title: string;
  intro?: string;
  rules: BookRule[];
}

/** English number: decimal point, thousands unseparated below 10 000. */
function num(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 1000) / 1000);
}

/** A duration in its largest whole unit: days from two days on, else h, min, s. */
export function dur(ms: number): string {
  if (ms >= 2 * DAY_MS && ms % DAY_MS === 0) return `${num(ms / DAY_MS)} days`;
  if (ms >= HOUR_MS && ms % HOUR_MS === 0) return `${num(ms / HOUR_MS)} h`;
  if (ms >= MINUTE_MS && ms % MINUTE_MS === 0) return `${num(ms / MINUTE_MS)} min`;
  return `${num(ms / 1000)} s`;
}

/** Bytes as the code counts them: decimal MB, else binary MiB/KiB. */
export function size(bytes: number): string {
  if (bytes % 1_000_000 === 0) return `${num(bytes / 1_000_000)} MB`;
  if (bytes % (1024 * 1024) === 0) return `${num(bytes / (1024 * 1024))} MiB`;
  if (bytes % 1024 === 0) return `${num(bytes / 1024)} KiB`;
  return `${num(bytes / 1_000_000)} MB`;
}

function list(items: readonly string[], last: 'and' | 'or' = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

const hh = (hour: number) => `${String(hour).padStart(2, '0')}:00`;
const minutes = (m: number) => dur(m * MINUTE_MS);
const seconds = (s: number) => dur(s * 1000);
const days = (d: number) => (d === 1 ? '1 day' : `${num(d)} days`);

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${num(n)}${suffix}`;
}

function datum(iso: string): string {
  return iso.slice(0, 10);
}

function base(c: RulesConstants, id: string): number {
  return c.cadence.periods.find((p) => p.id === id)?.baseMinutes ?? Number.NaN;
}

/** The book's sections with every rule, numbers taken from `c`. */
export function bookSections(c: RulesConstants): BookSection[] {
  const day = base(c, 'weekdayDay');
  const night = base(c, 'weekdayNight');
  const weekend = base(c, 'weekend');
  const dayStart = hh(c.cadence.weekdayDayStartHour);
  const dayEnd = hh(c.cadence.weekdayDayEndHour);
  const token = `\`${c.identity.productToken}\``;
  const agent = `${c.identity.productToken}/<package version> (+<info URL>; <contact>)`;
  const cf = c.cadence.checkFigure;
  const seq = quietSequence(c.cadence, day, 13);
  const ladder = sparingSequence(c.errors.ladder);
  const f = c.errors.firstTimePauseMinutes;
  const skip = c.lists.slowListSkipHours;
  const rechecks = c.deletion.recheckDays;
  const comparison =
    c.identity.comparisonUserAgent === null
      ? 'without any User-Agent header (what our HTTP library, undici, sends by default)'
      : `with \`User-Agent: ${c.identity.comparisonUserAgent}\``;
  const r = (id: string, text: string): BookRule => ({ id, text, home: RULE_HOMES[id] ?? NOT_YET });

  return [
    {
      title: 'ID — who we say we are',
      rules: [
        r(
          'ID-1',
          `Every request to a council information system (RIS) identifies itself as \`User-Agent: ${agent}\`; by default the info URL is ${c.identity.infoUrl} and the contact ${c.identity.contact}. Operators change it with \`INGESTOR_USER_AGENT\` (the older name \`SCRAPER_USER_AGENT\` still works).`,
        ),
        r(
          'ID-2',
          'Requests to an API ask for `Accept: application/json`; robots.txt is asked for with `Accept: text/plain`.',
        ),
        r(
          'ID-3',
          `One source may be given its own User-Agent, which then applies to its API, pages and files alike. robots.txt is fetched and read with that agent, and the rules for ${token} keep applying (ROB-3). The override is one line without control characters and never a browser's agent (a product token of a browser or engine — Mozilla/, AppleWebKit/, Chrome/, Safari/, Firefox/, Gecko/, Edg/, OPR/, Trident/ … — or \`like Gecko\`, \`MSIE \`; B-3): the Sources schema refuses both, naming the field.`,
        ),
        r(
          'ID-4',
          `After a 403 to a sync request we send exactly one comparison request per server and source run, ${comparison}, to the address that answered 403, inside the host's pace and in-flight limit and without following redirects. Only a 2xx answer counts as "our User-Agent is blocked"; a redirect or no answer proves nothing. It is a diagnosis only: we go on fetching with our own agent alone, and the source is spared (ERR-5). The probe (ONB-1) does the same after a 403 on a start page.`,
        ),
      ],
    },
    {
      title: 'ROB — robots.txt (RFC 9309)',
      rules: [
        r(
          'ROB-1',
          `Which groups apply: those whose \`User-agent\` equals our product token ${token}, compared case-insensitively; if there are none, the \`*\` groups; if there are none either, everything is allowed. A group for us replaces \`*\`; the two are not combined.`,
        ),
        r(
          'ROB-2',
          'Which rule wins: the longest matching one; with equal length, `Allow`. `*` matches any run of characters and `$` anchors the end. Path and query are compared case-sensitively after the percent-normalisation of RFC 9309 §2.2.2 and §2.2.3.',
        ),
        r(
          'ROB-2a',
          `Where RFC 9309 leaves a choice we read files as Google's reference parser does, since that is what municipalities test against: a \`User-agent\` value counts by its leading token (\`${c.identity.productToken}/1.2\` selects our group), \`* text\` is the global group, common misspellings of keys and a missing colon are accepted, \`Allow: …/index.html\` also allows \`…/\`, a partial byte-order mark is skipped, and only ASCII whitespace is trimmed (a byte-order mark inside the file spoils its line). The conformance corpus decides the edge cases.`,
        ),
        r(
          'ROB-3',
          `We check the token of the agent we actually send and always ${token} as well; both must allow. Groups for our former tokens ${list(c.identity.legacyTokens.map((t) => `\`${t}\``))} are read too, only where they exist, and they can only forbid.`,
        ),
        r(
          'ROB-4',
          'robots.txt governs API calls, HTML pages, files and the target of every redirect. `/robots.txt` itself may always be fetched.',
        ),
        r(
          'ROB-5',
          `A robots.txt is cached for ${dur(c.robots.cacheTtlMs)} per hostname and agent. Scheme, port and the case of the host name do not make a new entry (\`https://RIS.example.de:443/\`, \`http://ris.example.de/\` and \`https://ris.example.de:8443/\` share one file, as they share one pace); the file is loaded with the scheme and port of the first request that needs it. Only the first ${size(c.robots.maxBytes)} are read.`,
        ),
        r(
          'ROB-6',
          'Any 4xx answer (401, 403 and 406 included) means there is no robots.txt: everything is allowed.',
        ),
        r(
          'ROB-7',
          `Unreachable means 5xx, 408, 429, a network error or more than ${num(c.redirects.max)} redirects. A copy that was valid before stays in force until a fetch succeeds again. Without one we request nothing: the fetch is put off and robots.txt is tried again ${dur(c.robots.unreachableRetryMs)} later at the earliest. Unreachable is never read as "allowed".`,
        ),
        r(
          'ROB-8',
          `A disallowed request is not sent. When robots.txt lets no request of a source through to a server, the sync tries again no sooner than ${dur(c.robots.allowsNothingRetryMs)} later.`,
        ),
        r(
          'ROB-9',
          "An exception needs an approval recorded in the source's configuration, for the API, the files or both; without a valid note robots.txt applies.",
        ),
        r(
          'ROB-10',
          `(our addition) A \`Crawl-delay\` in the group that applies to us is a lower bound for that host's interval, capped at ${seconds(c.robots.crawlDelayCapSeconds)}, and shows in the status. \`Sitemap\` lines are ignored.`,
        ),
      ],
    },
    {
      title: 'RATE — pace and concurrency',
      intro:
        '"Server" or "host" always means the hostname, lower-cased, without the port. All times of day are Europe/Berlin.',
      rules: [
        r(
          'RATE-1',
          `At most one request every ${seconds(c.rate.minIntervalSeconds)} per server. Before each request — every redirect hop and every robots.txt fetch included — the caller reserves a moment for that server in the shared store (Redis), which all functions and tools use.`,
        ),
        r(
          'RATE-2',
          `A source can be made slower, up to ${seconds(c.rate.maxSourceIntervalSeconds)} between requests; anything below ${seconds(c.rate.minIntervalSeconds)} counts as ${seconds(c.rate.minIntervalSeconds)}. The largest interval set for any source on a hostname governs every fetch to that hostname, other fetches too, within ${dur(c.rate.hostIntervalRefreshMs)} of the change. A hostname is compared in one spelling: lower-cased, without port or trailing dot, international names in punycode (\`ris.example.de.\` is \`ris.example.de\`).`,
        ),
        r(
          'RATE-3',
          `Sources without an OParl API (scraped) default to one request every ${seconds(c.rate.scraperIntervalSeconds)}, are never faster than one per ${seconds(c.rate.minIntervalSeconds)}, and send strictly one after the other.`,
        ),
        r(
          'RATE-4',
          `At most ${num(c.rate.maxInFlightPerHost)} requests are open at once per server, counting syncs, scraping, text extraction and comparison requests together. The published rule counts per process; because many function instances run at once we keep the limit across all of them in the shared store, which is stricter.`,
        ),
        r(
          'RATE-5',
          "When a redirect leads to another server, the request's in-flight place moves to that server first; the target's pace and limit apply there as well.",
        ),
        r(
          'RATE-6',
          `The deletion check also keeps at least ${dur(c.rate.deletionCheckSpacingMs)} between two checks of the same server within a run; the GET that follows an unclear HEAD sample only keeps the shared pace.`,
        ),
        r(
          'RATE-7',
          `If the shared store cannot be reached, each process paces itself and tries Redis again after ${dur(c.rate.sharedStoreRetryMs)}. (our addition) Meanwhile it adds ${dur(c.rate.fallbackSlackMs)} to its interval and multiplies the sum by the largest number of function instances that may fetch at once (at least ${c.rate.fallbackMinCycleSlots}), so the bound for all of them together still holds; each keeps the turn it had under Redis, so processes that took turns on a server stay on their turns. (our addition) A process keeps a turn on a server only if it had one there in the last cycle before it lost the store (at least the last ${c.rate.fallbackPhaseMinSlots} turns); otherwise it sends nothing to that server until Redis answers again, since any time it picked could fall next to another process's turn. (our addition) Because instances that still reach Redis cannot see its requests, a process that loses the store first sends nothing until that retry has failed too.`,
        ),
        r(
          'RATE-8',
          `(our addition) A 429 or 503 with \`Retry-After\` (seconds or an HTTP date) stops all requests to that host until then, for at most ${dur(c.rate.retryAfterCapMs)}, on top of every pause below; it never shortens one.`,
        ),
        r(
          'RATE-9',
          `(our addition) One host, one budget. All sources on one host (RATE-2's key) and the other fetches to it share its pace. When their cadence asks for more requests than the pace serves, the pace wins: every source on that host is slowed by the same factor (demand ÷ capacity), session days included — on one host a session-day run starts first — and none is starved; \`status\`, \`ingestor hosts\` and the dashboard say so (per saturated host its factor); a source starved — past its turn at the host's factor in force (counted from when that factor began: it changes with the periods and the full-sync window) by more than its stretched interval again — raises an alarm (saturation alone does not: it is the lawful state). Sync slots (SCH-5) go to runs whose host can serve them now: per host never more runs than its pace keeps busy (one, two for a server slower than the pace, never more than ${num(c.rate.maxInFlightPerHost)}), so a slot never waits for a busy host while a source on another host is due. A host's full syncs share its nightly window: those that do not fit wait for the next night, oldest first (FULL-3); those that run take turns with the host's incremental syncs — on a host with capacity never more than its spare, so the incremental cadence goes on at its own pace while they run (FULL-3), on a saturated host at most half its time, and the host's factor counts that share. The document passes (files and text, deletion check, photos) are admitted per host against the same budget: not while the host is paused (RATE-8), never beyond half its pace, and on a host the syncs fill only while they use less than a tenth of it — syncs go first, documents still drain; a host skipped stays due for the next pass, and the pass's report says why. The preview's on-demand fetch is admitted the same way; refused, it answers 503 with Retry-After (PRV-1) and asks nothing. Every request of these fetches is counted per host in one shared ledger. The planner reads every host's pause, Crawl-delay and the other fetches' use from one shared ledger per tick.`,
        ),
      ],
    },
    {
      title: 'RED — redirects',
      rules: [
        r(
          'RED-1',
          `We follow at most ${num(c.redirects.max)} redirects per fetch; one more ends the fetch with an error.`,
        ),
        r(
          'RED-2',
          "Before each hop: (1) the target must be a public address — not loopback, private, link-local, a metadata service, multicast and the like — checked after DNS on the address we actually connect to; (2) the target server's robots.txt, read with the agent of the first request; (3) a slot of its own in the target server's pace.",
        ),
        r(
          'RED-3',
          "A target that robots.txt disallows is not followed; if the target's robots.txt is unreachable, the fetch is put off.",
        ),
      ],
    },
    {
      title: 'SCH — when a source is synced (incremental sync)',
      rules: [
        r(
          'SCH-1',
          `Each source keeps its own cadence. The base interval depends on the period: weekdays ${dayStart}–${dayEnd} ${minutes(day)}, weekdays ${dayEnd}–${dayStart} ${minutes(night)}, Saturdays and Sundays ${minutes(weekend)}. Public holidays count as weekdays. A source can be set slower per period; \`INGESTOR_INTERVAL\` sets the weekday daytime base.`,
        ),
        r(
          'SCH-2',
          `A session day is a day on which, according to our mirrored data, a meeting of one of the source's bodies begins; cancelled meetings and meetings the source has deleted do not count, weekends do. On a session day and the day before, the interval is at most ${minutes(c.cadence.sessionDayCapMinutes)}.`,
        ),
        r(
          'SCH-3',
          `Quiet syncs stretch the interval: every sync counts, the first of a period included, and after every ${num(c.cadence.quietSyncsPerDoubling)} syncs in a row without a change the interval doubles, up to ${minutes(c.cadence.quietCeilingMinutes)} (${minutes(c.cadence.sessionDayCapMinutes)} on session days and the day before). On a weekday from ${dayStart}: ${seq.map(num).join(', ')} … minutes, that is syncs at ${cf.weekdayDaySequence.join(', ')} … A sync that finds a change goes back to the period's base, and so does a sync in a different period from the previous one.`,
        ),
        r(
          'SCH-4',
          `The interval runs from the end of the previous sync. When a period with a shorter base begins before it is over, the sync is due at that period's start: ${dayStart} rather than ${String(c.cadence.weekdayDayStartHour).padStart(2, '0')}:30, ${dayEnd} once the day's interval has grown beyond ${minutes(night)}, Monday 00:00 after a weekend.`,
        ),
        r(
          'SCH-5',
          `One sync per source at a time, and by default at most ${num(c.cadence.maxConcurrentSyncs)} sources at once (configurable). The per-server pace applies on its own.`,
        ),
        r(
          'SCH-6',
          `Check figure: with no changes and no meetings, and syncs that take no time, a source is synced ${num(cf.weekendDaySyncs)} times per weekend day, ${num(cf.weekdayNightSyncs)} times per weekday night (${dayEnd}–${dayStart}) and ${num(cf.weekdayDaySyncs)} times per weekday day (${dayStart}–${dayEnd}); a week from Monday 00:00 gives ${num(cf.weekSyncs)} syncs instead of ${num(cf.flatTenMinuteWeekSyncs)} at a flat 10 minutes (Monday before ${dayStart}: ${num(cf.split.mondayBefore07)}, five days: ${num(cf.split.fiveWeekdayDays)}, four full nights: ${num(cf.split.fourFullNights)}, Friday from ${dayEnd}: ${num(cf.split.fridayAfter19)}, weekend: ${num(cf.split.weekend)}).`,
        ),
        r(
          'SCH-7',
          'Sparing (ERR-5) comes first: a paused source is not synced, not even on request. A requested sync still keeps robots.txt, the host pace, the full-sync window and the minimum distance.',
        ),
        r(
          'SCH-8',
          `Every list is asked for changes only (\`modified_since\`), which costs one page per unchanged list. The body list is read across all its pages (\`links.next\`), at most ${num(c.lists.bodyListMaxPages)}; a page that repeats the one before it (a server serving the same page under every page number) ends it.`,
        ),
        r(
          'SCH-9',
          `The change window starts at the beginning of the body's last complete sync minus ${dur(c.lists.changeWindowMarginMs)}, and reaches back at most ${dur(c.lists.changeWindowMaxMs)}. Only lists whose \`modified\` values are shown to carry a time of day get it; the others — new lists and lists without a change seen so far included — are asked from the start of that day.`,
        ),
        r(
          'SCH-10',
          `A server that rejects or ignores the filter: we read the list from the start, compare ourselves and stop after ${num(c.lists.unfilteredStopPages)} pages without a change. After every full sync one request checks whether the server filters by \`modified\`; if the answer is inconclusive it is repeated once after ${dur(c.lists.filterRecheckDelayMs)}.`,
        ),
        r(
          'SCH-11',
          `Missing optional lists (membership, agendaItem, consultation, file, location) are noted. The incremental sync asks for them again at most once every ${dur(c.lists.missingListRecheckMs)}, the full sync every time, the sliced full sync never. An SD.NET server answering that check with "no results" keeps the note; the next check follows after ${dur(c.lists.missingListRecheckMs)}.`,
        ),
        r(
          'SCH-12',
          `A slow optional list — its last request got no answer within ${dur(c.lists.slowListTimeoutMs)}, or HTTP 504 — is left out for ${num(skip[0] ?? Number.NaN)} h, longer after each further timeout in a row: ${list(skip.map(num))} h, at most ${num(skip[skip.length - 1] ?? Number.NaN)} h. The full sync leaves it out as well and is then not complete. Other errors never make us skip a list. Afterwards the list's changes are caught up, for filtering servers in chunks of ${days(c.lists.catchUpChunkDays)} (\`modified_since\` + \`modified_until\`), otherwise in one go. Mandatory lists (organization, person, meeting, paper) are never left out.`,
        ),
      ],
    },
    {
      title: 'FULL — full sync',
      rules: [
        r(
          'FULL-1',
          `At most once per window all lists of a source are read completely, as a safety net. The default window opens at \`INGESTOR_FULL_SYNC_HOUR\` (default ${hh(c.full.defaultHour)}) and lasts ${num(c.full.windowHours)} h. If an incremental sync of the source is running when the window opens, the full sync follows right after it. While it runs, only that source's incremental syncs wait.`,
        ),
        r(
          'FULL-2',
          'One attempt per night: a full sync that was aborted or stayed incomplete is retried in the next window only, a restart included.',
        ),
        r(
          'FULL-3',
          `Full syncs take at most all sync slots but ${num(c.full.slotsKeptForIncremental)} (by default ${num(c.cadence.maxConcurrentSyncs - c.full.slotsKeptForIncremental)} of ${num(c.cadence.maxConcurrentSyncs)}). With none free the full sync waits while its window is open, and the source keeps its usual cadence meanwhile. A slot that frees up goes first to the source whose last full sync is the oldest.`,
        ),
        r(
          'FULL-4',
          'Per source there can be a minimum distance in days and a window of its own (also across midnight). With its own window a full sync starts only inside it and fetches no further page after it closes; open lists continue next time. The default window only limits the start: a started full sync runs to its end. (Scraper full syncs do not yet stop when the window closes.)',
        ),
        r(
          'FULL-5',
          `Sliced full sync, for servers that cannot deliver whole lists (504 after ${dur(c.lists.slowListTimeoutMs)}, say): every list is read in time slices from old to new with \`modified_since\` and \`modified_until\` (OParl 1.1) on every page — never unfiltered; if the server rejects the filter the list stays open. Each slice costs at least one request, even an empty one. One slice covers everything before ${datum(c.full.sliceEpochLocal)} (\`modified_until\` only), then slices of ${days(c.full.sliceDays)} follow up to the one that contains today: ${num(c.full.slicesOnExampleDate)} slices per list on ${datum(c.full.slicesExampleDate)}.`,
        ),
        r(
          'FULL-6',
          "Slicing happens only inside the source's window (its own or the default one) and always ends with it; outside it, and when started without a window (from the command line, say), an incremental sync runs instead. It resumes at the last complete slice.",
        ),
        r(
          'FULL-7',
          `A slice that returns objects modified more than ${dur(c.full.filterToleranceMs)} before or after its range shows the filter is not honoured: nothing of that page is taken, the full sync stops, and the source gets incremental syncs only for ${days(c.full.incrementalOnlyDays)}.`,
        ),
        r(
          'FULL-8',
          "A full sync requested by hand keeps the source's own window and minimum distance; otherwise it starts at once, by day too, and runs to the end — sliced only inside the default window.",
        ),
      ],
    },
    {
      title: 'ONB — before and while adding a system',
      rules: [
        r(
          'ONB-1',
          `The probe spends at most ${num(c.onboarding.probeMaxRequests)} requests per body (robots.txt, the start page, the usual OParl addresses: links on the start page, then ${list(c.onboarding.probePaths.map((x) => `\`${x}\``))}), redirects and another server's robots.txt counted. Disallowed paths are not requested; an unreachable robots.txt ends the probe after that one request. Two bodies are ${dur(c.onboarding.probePauseMs)} apart.`,
        ),
        r(
          'ONB-2',
          `Adding a source: after robots.txt has been checked we fetch the System and the body list (at most ${num(c.lists.bodyListMaxPages)} pages), at the same pace.`,
        ),
        r(
          'ONB-3',
          'Sources our tools create (adding, importing, a manual sync of an unknown URL) start inactive, and only active sources are synced. The admin form and `import --activate` create active ones. Sources that already exist keep their state.',
        ),
        r(
          'ONB-4',
          'New bodies stay unlisted until an operator lists them. While the source is active their data and files are fetched, but the sync does not store their documents.',
        ),
      ],
    },
    {
      title: 'DOC — documents (files, nearly always PDF)',
      rules: [
        r(
          'DOC-1',
          "Files are fetched under ROB, RATE and RED. A switch per source turns file fetching off completely; then no function fetches any of that source's files.",
        ),
        r(
          'DOC-2',
          `Text extraction: each newly recorded file without text is downloaded once, at most ${num(c.documents.textMaxFilesPerBody)} files per body and run and at most ${size(c.documents.textMaxFileBytes)} per file. ` +
            `Each file is read in a worker that is stopped after ${dur(c.documents.textTimeoutMs)}, when it adds more than ${size(c.documents.textMaxGrowthBytes)} of memory, or before reading above ${num(c.documents.textMaxPages)} pages; ` +
            `the attempt is recorded before the file is read, and after a timeout, a memory breach or an interrupted attempt the text is tried again from our copy after ${list(c.documents.textRetryLadderMs.map(dur))}, then given up.`,
        ),
        r(
          'DOC-3',
          `The document cache takes at most ${num(c.documents.cacheMaxFilesPerRun)} files an hour, at most ${num(c.documents.cacheMaxFilesPerSource)} per source, up to ${size(c.documents.cacheMaxFileBytes)} per file.`,
        ),
        r(
          'DOC-4',
          `After a timeout, a connection error, an empty body, 429, 5xx or an unreachable robots.txt a file is tried again after ${list(c.documents.retryLadderMs.map(dur))}; after that, and after any other error (403 included), every ${dur(c.documents.retryWeeklyMs)} without end.`,
        ),
        r(
          'DOC-5',
          `Attempts stop when robots.txt forbids the file, when the source sends an HTML page instead of the file (bot protection), when the file is larger than ${size(c.documents.cacheMaxFileBytes)}, when it is gone with 404/410 (the deletion check takes over) or when the source or its file fetching is switched off. A 404/410 within ${dur(c.documents.goneProvisionalMs)} of our first record is provisional, since sources often publish the object before its file.`,
        ),
        r(
          'DOC-6',
          'A file blocked by robots.txt or by bot protection is fetched again only after an operator has cleared it. Access checks are never bypassed.',
        ),
        r('DOC-7', 'The sync does not store documents of unlisted bodies (ONB-4).'),
      ],
    },
    {
      title: 'DEL — deletion check (hourly)',
      rules: [
        r(
          'DEL-1',
          `Documents the source has changed are fetched again, at most ${num(c.deletion.maxRefetchesPerRun)} per run. (our addition) With \`If-None-Match\` / \`If-Modified-Since\` where we hold an ETag or a Last-Modified date, so an unchanged file costs only a 304.`,
        ),
        r(
          'DEL-2',
          `HEAD samples, for publicly listed bodies only, at most ${num(c.deletion.samplesPerBody)} per body and run.`,
        ),
        r(
          'DEL-3',
          `Documents gone with 404/410 are checked again after ${list(rechecks.slice(0, -1).map(num))} days; after ${days(rechecks[rechecks.length - 1] ?? Number.NaN)} one GET decides: still missing → our copy and its text are deleted; there again → the mark is lifted.`,
        ),
        r(
          'DEL-4',
          `After ${list(c.deletion.stopStatuses.map(num), 'or')}, or ${num(c.deletion.maxErrorsInRow)} errors in a row, the run asks that server nothing more. When more than ${num(c.deletion.sourceRestNewGone)} documents of one source newly report 404/410 in a run, the source rests for that run.`,
        ),
        r(
          'DEL-5',
          'The preview and the deletion check do not depend on the source being active, only on file fetching (DOC-1) and sparing (ERR-6).',
        ),
      ],
    },
    {
      title: 'PRV — document preview (on demand)',
      rules: [
        r(
          'PRV-1',
          `When someone opens a document we have not stored, the preview fetches it from the source under ROB, RATE and RED and waits at most ${dur(c.preview.maxWaitMs)} in total — for an in-flight place, robots.txt and a free slot, redirects included; otherwise it answers 503 and asks to try later rather than break the pace.`,
        ),
        r(
          'PRV-2',
          `At most ${num(c.preview.concurrentPerProcess)} such fetches at once per process, and at most ${num(c.preview.perVisitor)} per visitor address every ${dur(c.preview.visitorWindowMs)}.`,
        ),
        r(
          'PRV-3',
          'For bodies whose documents we store (DOC-7) the fetched file is stored; for the others every opening asks the source.',
        ),
        r(
          'PRV-4',
          'The preview depends on file fetching (DOC-1) and sparing (ERR-6) only, not on the source being active; with file fetching off it links to the original instead.',
        ),
      ],
    },
    {
      title: 'PHO — person photos',
      rules: [
        r(
          'PHO-1',
          `Mondays at ${hh(c.photos.weekdayHour)}, only for bodies with a photo URL pattern: at most ${num(c.photos.maxPersonsPerBody)} persons per body and run, photos never checked or checked more than ${dur(c.photos.recheckMs)} ago; ${dur(c.photos.pauseMs)} between two photos, plus the host pace.`,
        ),
        r(
          'PHO-2',
          `A missing photo or an error is noted and asked for again after ${dur(c.photos.recheckMs)} at the earliest. An unreachable robots.txt notes nothing; the next run tries again.`,
        ),
        r(
          'PHO-3',
          'No photos, and nothing noted, when the source is inactive, its file fetching is off or it is spared.',
        ),
      ],
    },
    {
      title: 'ERR — errors and sparing',
      rules: [
        r(
          'ERR-1',
          `Within a sync, after a network error, a timeout (no answer within ${dur(c.errors.listTimeoutMs)}) or 5xx there are at most ${num(c.errors.apiAttempts)} attempts, ${list(c.errors.retryPausesMs.map(dur))} apart, each inside the pace. 403, 404, 429 and other 4xx are not retried in that run. Files follow DOC-4.`,
        ),
        r(
          'ERR-2',
          `Circuit breaker: after ${num(c.errors.breakerFailures)} failed attempts against one server in one source run, that server gets no request for ${dur(c.errors.breakerOpenMs)}. 404 does not count.`,
        ),
        r(
          'ERR-3',
          `${num(c.errors.serverErrorSeries)} server errors in a row at one server are a disruption (a "5xx series").`,
        ),
        r(
          'ERR-4',
          `From the ${ordinal(c.errors.ladder.fromFailedRun)} failed run of a source in a row the source pauses ${minutes(c.errors.ladder.firstPauseMinutes)}, ${num(c.errors.ladder.factor)} times longer after each further failed run, at most ${minutes(c.errors.ladder.maxPauseMinutes)} (${ladder.map(num).join(', ')} minutes).`,
        ),
        r(
          'ERR-5',
          `Some failures pause a source the first time they happen: at least ${minutes(f.uaBlocked)} when a server blocks our User-Agent (ID-4); ${minutes(f.serverErrorSeries)} after a 5xx series; ${minutes(f.robotsUnreachable)} for an unreachable robots.txt; ${minutes(f.robotsForbidsAll)} when robots.txt allows no request (ROB-8). The longer of this and ERR-4 applies.`,
        ),
        r(
          'ERR-6',
          `The document cache, the preview, the deletion check and the photos rest for a source from its ${ordinal(c.errors.documentsRestFromFailedRun)} failed sync run in a row until a run succeeds again. robots.txt is checked on every fetch regardless.`,
        ),
        r(
          'ERR-7',
          'An inactive source is not synced. To stop every fetch at a RIS, its file fetching must be switched off as well.',
        ),
      ],
    },
    {
      title: 'OPT — opt-out and takedown',
      rules: [
        r(
          'OPT-1',
          `A robots.txt group for ${token} takes effect within ${dur(c.robots.cacheTtlMs)} (ROB-5), for every kind of fetch (ROB-4), without anything to do on our side.`,
        ),
        r(
          'OPT-2',
          'Tombstone: objects marked deleted vanish at once from every output (mirror listings, exports, APIs) but are kept for audit.',
        ),
        r(
          'OPT-3',
          "Physical deletion, on a municipality's explicit request, takes the search index and texts and our file copies too: `purge-deleted --body <slug>` first shows what would go, `--yes` deletes it.",
        ),
        r(
          'OPT-4',
          `Per source an operator can raise the interval (up to ${seconds(c.rate.maxSourceIntervalSeconds)}), sync less often per period, set a full-sync window, a minimum distance or sliced mode, switch off file fetching, or deactivate the source. When several sources share a server, the change applies to all of them.`,
        ),
        r(
          'OPT-5',
          "A takedown lasts until an operator lifts it: no purge and no later sync, file pass, deletion check, photo pass or preview brings back the object, its body or its files — also when the takedown is issued while a sync of that source is running, and also when the source's Sources item is invalid (a hand-edit typo): the takedown is recorded for the source that owns the id's host (or holds the id in its mirror) and logged loudly; where an invalid item makes the owner unknowable, `tombstone` refuses and names the item and the field.",
        ),
      ],
    },
    {
      title: 'OTH — other fetches (geo services, streaming providers)',
      rules: [
        r(
          'OTH-1',
          `These fetches carry the same fixed identity as council fetches (\`${c.identity.productToken} (+${c.identity.infoUrl}; ${c.identity.contact})\`); no source can override it.`,
        ),
        r(
          'OTH-2',
          `They keep their own pace per server (at most one request per ${seconds(c.other.intervalSeconds)}) through the same shared slot store, before every request and every redirect; a service on a council system's host shares that host's pace. A larger interval set for a council source on the same hostname applies too, also while that source is inactive, within ${dur(c.rate.hostIntervalRefreshMs)} of a change.`,
        ),
        r(
          'OTH-3',
          "robots.txt is not read for these fetches (they are service interfaces, not pages; the service's terms apply). Each such source can be switched off on its own, and the municipality page says how to ask for that.",
        ),
        r(
          'OTH-4',
          `Development-plan boundaries are refreshed daily from OGC API Features or WFS (at ${String(c.other.geoRefreshHour).padStart(2, '0')}:${String(c.other.geoRefreshMinute).padStart(2, '0')} Europe/Berlin; at most ${num(c.other.geoMaxPages)} pages per service and run, answers up to ${size(c.other.maxBytes)}). (our addition) An empty answer keeps the existing stock and records an error; errors are recorded as fixed texts without internal details (e.g. ${list(
            c.other.geoErrorExamples.map((t) => `"${t}"`),
            'or',
          )}).`,
        ),
        r(
          'OTH-5',
          `Live broadcasts of council meetings come from the streaming provider. (our addition, sparing) Only around scheduled, not cancelled meetings of the body, at most once a minute: from ${num(c.broadcasts.leadMinutes)} min before a meeting's scheduled start until its scheduled end, or ${num(c.broadcasts.openEndHours)} h after the start when no end is known; never for a cancelled, deleted or taken-down meeting; at most one poll per ${dur(c.broadcasts.pollIntervalMs)} and broadcast source, ${c.broadcasts.attemptsPerPoll === 1 ? 'one request' : `at most ${num(c.broadcasts.attemptsPerPoll)} requests`} per poll (its next poll is the retry). A stream that is not live is an answer, not an error; errors are recorded as fixed texts without internal details.`,
        ),
      ],
    },
    {
      title: 'B — further decisions of our own',
      intro:
        'These come from the other seeds of the project and only ever make the ingestor slower or more careful.',
      rules: [
        r(
          'B-1',
          'Conditional requests (ETag / Last-Modified) wherever we fetch the same URL again: robots.txt refreshes, files, list pages that offer validators.',
        ),
        r('B-2', 'We honour `Retry-After` (RATE-8) and `Crawl-delay` (ROB-10).'),
        r(
          'B-3',
          'We never disguise the client, never rotate addresses and never get around a login, a captcha or a block.',
        ),
        r(
          'B-4',
          'Attribution is kept: every mirrored object records its source URL and when it was fetched.',
        ),
      ],
    },
  ];
}

/**
 * Where each rule is kept and which tests prove it (paths from the repository root). Every listed test
 * file must cite the rule's ID, and every listed module must exist (test/docs/rules-book.test.ts).
 * Rules not built yet would be `NOT_YET`; since issue 17 there are none.
 */
export const RULE_HOMES: Record<string, RuleHome | typeof NOT_YET> = {
  'ID-1': {
    modules: ['shared/fetch/types.ts', 'shared/fetch/user-agent.ts', 'shared/fetch/version.ts'],
    tests: ['test/fetch/identity.test.ts', 'test/e2e/slice.test.ts', 'test/fake-council/robots.test.ts'],
  },
  'ID-2': {
    modules: ['shared/fetch/constants.ts', 'shared/fetch/plan.ts'],
    tests: ['test/e2e/slice.test.ts', 'test/fake-council/robots.test.ts', 'test/fetch/identity.test.ts'],
  },
  'ID-3': {
    modules: [
      'shared/fetch/plan.ts',
      'shared/fetch/robots-fetch.ts',
      'shared/fetch/types.ts',
      'shared/config/source.ts',
      'shared/config/user-agent.ts',
    ],
    tests: ['test/fetch/identity.test.ts', 'test/config/user-agent.test.ts'],
  },
  'ID-4': {
    modules: ['shared/fetch/comparison.ts', 'shared/fetch/run-context.ts', 'shared/fetch/constants.ts'],
    tests: [
      'test/onboarding/probe.test.ts',
      'test/oparl/polite-port.test.ts',
      'test/fake-council/faults.test.ts',
    ],
  },
  'ROB-1': {
    modules: ['shared/robots/match.ts', 'shared/robots/verdict.ts', 'demo/robots.ts'],
    tests: ['test/robots/match.test.ts', 'test/robots/parse.test.ts', 'test/robots/verdict.test.ts'],
  },
  'ROB-2': {
    modules: ['shared/robots/match.ts', 'shared/robots/verdict.ts'],
    tests: ['test/robots/match.test.ts', 'test/robots/check.test.ts', 'test/cli/cli.test.ts'],
  },
  'ROB-2a': {
    modules: ['shared/robots/match.ts', 'shared/robots/parse.ts', 'shared/robots/types.ts'],
    tests: ['test/robots/parse.test.ts', 'test/robots/match.test.ts', 'test/robots/check.test.ts'],
  },
  'ROB-3': {
    modules: ['shared/robots/verdict.ts', 'shared/robots/constants.ts', 'cli/commands/robots.ts'],
    tests: ['test/robots/verdict.test.ts', 'test/fetch/identity.test.ts', 'test/robots/check.test.ts'],
  },
  'ROB-4': {
    modules: ['shared/robots/match.ts', 'shared/robots/verdict.ts', 'shared/fetch/admission.ts'],
    tests: ['test/robots/match.test.ts', 'test/fetch/robots.test.ts', 'test/robots/verdict.test.ts'],
  },
  'ROB-5': {
    modules: ['shared/robots/cache.ts', 'infra/stack.ts', 'shared/fetch/robots-gate.ts'],
    tests: [
      'test/robots/parse.test.ts',
      'test/robots/verdict.test.ts',
      'test/fetch/robots.test.ts',
      'test/pace/host-spellings.test.ts',
    ],
  },
  'ROB-6': {
    modules: ['shared/robots/cache.ts', 'shared/robots/verdict.ts', 'demo/robots.ts'],
    tests: ['test/robots/verdict.test.ts', 'test/robots/check.test.ts', 'test/fake-council/robots.test.ts'],
  },
  'ROB-7': {
    modules: ['shared/robots/cache.ts', 'shared/robots/verdict.ts', 'shared/onboarding/probe.ts'],
    tests: ['test/robots/verdict.test.ts', 'test/fetch/robots.test.ts', 'test/robots/check.test.ts'],
  },
  'ROB-8': {
    modules: ['shared/robots/verdict.ts', 'shared/oparl/cursor.ts', 'shared/preview/decide.ts'],
    tests: ['test/robots/verdict.test.ts', 'test/preview/preview.test.ts', 'test/fetch/https.test.ts'],
  },
  'ROB-9': {
    modules: ['shared/robots/verdict.ts', 'shared/config/source.ts', 'shared/fetch/source.ts'],
    tests: ['test/robots/verdict.test.ts', 'test/config/source.test.ts', 'test/fetch/robots.test.ts'],
  },
  'ROB-10': {
    modules: ['shared/fetch/admission.ts', 'shared/fetch/host-slot.ts', 'shared/robots/verdict.ts'],
    tests: ['test/fetch/robots.test.ts', 'test/robots/parse.test.ts', 'test/robots/verdict.test.ts'],
  },
  'RATE-1': {
    modules: [
      'shared/fetch/host-slot.ts',
      'shared/fetch/fetcher.ts',
      'shared/slots/scripts.ts',
      'shared/onboarding/probe.ts',
    ],
    tests: ['test/slots/local-slots.test.ts', 'test/fetch/redis-slots.test.ts', 'test/fetch/robots.test.ts'],
  },
  'RATE-2': {
    modules: [
      'shared/fetch-runtime/host-intervals.ts',
      'shared/config/source.ts',
      'shared/slots/constants.ts',
      'shared/util/host-key.ts',
    ],
    tests: [
      'test/slots/local-slots.test.ts',
      'test/cli/cli.test.ts',
      'test/config/source.test.ts',
      'test/pace/host-spellings.test.ts',
    ],
  },
  'RATE-3': {
    modules: ['shared/scraper/engine.ts', 'shared/config/source.ts', 'shared/scraper/fetch.ts'],
    tests: ['test/config/source.test.ts', 'test/scraper/engine.test.ts', 'test/scraper/runtime.test.ts'],
  },
  'RATE-4': {
    modules: ['shared/fetch/ports.ts', 'shared/slots/scripts.ts', 'shared/net/dispatcher.ts'],
    tests: [
      'test/slots/redis-pace.test.ts',
      'test/fetch/redis-slots.test.ts',
      'test/preview/preview.test.ts',
      'test/fetch/deadlines.test.ts',
    ],
  },
  'RATE-5': {
    modules: ['shared/slots/scripts.ts', 'shared/fetch/host-slot.ts', 'shared/fetch/redirect.ts'],
    tests: [
      'test/fetch/redirects.test.ts',
      'test/slots/local-slots.test.ts',
      'test/slots/redis-rules.test.ts',
    ],
  },
  'RATE-6': {
    modules: ['shared/documents/deletion.ts', 'shared/documents/constants.ts', 'shared/documents/decide.ts'],
    tests: ['test/documents/decide.test.ts', 'test/documents/deletion.test.ts'],
  },
  'RATE-7': {
    modules: [
      'infra/stack.ts',
      'shared/slots/host-slots.ts',
      'shared/slots/local-store.ts',
      'shared/slots/fallback-phase.ts',
      'shared/slots/constants.ts',
    ],
    tests: [
      'test/documents/infra.test.ts',
      'test/preview/infra.test.ts',
      'test/slots/failover.test.ts',
      'test/slots/fallback-anchors.test.ts',
      'test/slots/fallback-phase-decision.test.ts',
      'test/slots/fallback-phases.test.ts',
      'test/slots/local-slots.test.ts',
      'test/slots/partial-outage.test.ts',
    ],
  },
  'RATE-8': {
    modules: [
      'shared/slots/scripts.ts',
      'shared/fetch/retry.ts',
      'shared/fetch/fetcher.ts',
      'shared/fetch/constants.ts',
    ],
    tests: [
      'test/fetch/redis-slots.test.ts',
      'test/documents/decide.test.ts',
      'test/fake-council/faults.test.ts',
      'test/planner/host-ledger.test.ts',
    ],
  },
  'RATE-9': {
    modules: [
      'shared/hosts/model.ts',
      'shared/hosts/admission.ts',
      'shared/hosts/stretch.ts',
      'shared/hosts/full-sync-budget.ts',
      'shared/planner/fleet.ts',
      'shared/hosts/other-fetches.ts',
      'shared/documents/admission.ts',
      'shared/preview/admission.ts',
      'shared/slots/ledger.ts',
      'cli/commands/hosts.ts',
      'shared/observability/host-metrics.ts',
      'infra/observability.ts',
    ],
    tests: [
      'test/hosts/hosts.test.ts',
      'test/hosts/other-fetch-admission.test.ts',
      'test/documents/host-admission.test.ts',
      'test/documents/photos-admission.test.ts',
      'test/preview/host-budget.test.ts',
      'test/cli/explain-hosts.test.ts',
      'test/planner/host-ledger.test.ts',
      'test/slots/host-ledger.test.ts',
      'test/sync/continued-run.test.ts',
      'test/planner/hosts-loopback.test.ts',
      'test/cli/hosts.test.ts',
      'test/observability/host-metrics.test.ts',
      'test/cdk/observability.test.ts',
    ],
  },
  'RED-1': {
    modules: ['shared/fetch/constants.ts', 'shared/fetch/errors.ts', 'shared/fetch/redirect.ts'],
    tests: [
      'test/fetch/redirects.test.ts',
      'test/fake-council/faults.test.ts',
      'test/onboarding/probe.test.ts',
    ],
  },
  'RED-2': {
    modules: ['shared/net/address.ts', 'shared/fetch/admission.ts', 'shared/net/dispatcher.ts'],
    tests: ['test/fetch/redirects.test.ts', 'test/net/resolver.test.ts', 'test/net/address.test.ts'],
  },
  'RED-3': {
    modules: ['shared/fetch/admission.ts', 'shared/fetch/redirect.ts'],
    tests: ['test/fetch/redirects.test.ts'],
  },
  'SCH-1': {
    modules: ['shared/schedule/cadence.ts', 'shared/schedule/constants.ts', 'shared/schedule/periods.ts'],
    tests: ['test/schedule/periods.test.ts', 'test/schedule/cadence.test.ts', 'test/schedule/decide.test.ts'],
  },
  'SCH-2': {
    modules: ['shared/schedule/cadence.ts', 'shared/engine/state.ts', 'shared/schedule/types.ts'],
    tests: ['test/schedule/cadence.test.ts', 'test/schedule/simulate.test.ts', 'test/oparl/sync.test.ts'],
  },
  'SCH-3': {
    modules: ['shared/schedule/cadence.ts', 'shared/schedule/types.ts', 'shared/schedule/constants.ts'],
    tests: [
      'test/schedule/cadence.test.ts',
      'test/schedule/decide.test.ts',
      'test/schedule/periods.test.ts',
      'test/oparl/deletion-stubs.test.ts',
    ],
  },
  'SCH-4': {
    modules: ['shared/schedule/cadence.ts', 'shared/schedule/decide.ts', 'shared/schedule/simulate.ts'],
    tests: [
      'test/schedule/cadence.test.ts',
      'test/schedule/simulate.test.ts',
      'test/schedule/decide.test.ts',
    ],
  },
  'SCH-5': {
    modules: ['shared/schedule/slots.ts', 'shared/schedule/decide.ts', 'shared/planner/tick.ts'],
    tests: [
      'test/schedule/slots.test.ts',
      'test/store/source-state.test.ts',
      'test/planner/tick.test.ts',
      'test/sync/lane-race.test.ts',
    ],
  },
  'SCH-6': {
    modules: ['shared/schedule/simulate.ts', 'cli/commands/simulate.ts', 'shared/schedule/constants.ts'],
    tests: ['test/schedule/simulate.test.ts', 'test/cli/cli.test.ts'],
  },
  'SCH-7': {
    modules: ['shared/schedule/decide.ts', 'shared/schedule/types.ts', 'cli/commands/request.ts'],
    tests: ['test/schedule/sparing.test.ts', 'test/planner/tick.test.ts', 'test/schedule/decide.test.ts'],
  },
  'SCH-8': {
    modules: ['shared/onboarding/add-source.ts', 'shared/oparl/constants.ts', 'shared/oparl/system.ts'],
    tests: [
      'test/oparl/somacos.test.ts',
      'test/fake-council/dataset.test.ts',
      'test/fake-council/filters.test.ts',
      'test/fake-council/mutate.test.ts',
    ],
  },
  'SCH-9': {
    modules: ['shared/oparl/decisions.ts', 'shared/engine/types.ts', 'shared/oparl/windows.ts'],
    tests: ['test/oparl/windows.test.ts', 'test/oparl/sync.test.ts', 'test/fake-council/filters.test.ts'],
  },
  'SCH-10': {
    modules: ['shared/oparl/engine.ts', 'shared/oparl/constants.ts', 'shared/engine/types.ts'],
    tests: [
      'test/oparl/filters.test.ts',
      'test/fake-council/faults.test.ts',
      'test/oparl/decisions.test.ts',
      'test/oparl/somacos.test.ts',
    ],
  },
  'SCH-11': {
    modules: ['shared/oparl/list-errors.ts', 'shared/oparl/decisions.ts', 'demo/types.ts'],
    tests: [
      'test/fake-council/dataset.test.ts',
      'test/fake-council/faults.test.ts',
      'test/oparl/decisions.test.ts',
    ],
  },
  'SCH-12': {
    modules: ['shared/oparl/decisions.ts', 'shared/oparl/constants.ts', 'shared/oparl/list-task.ts'],
    tests: [
      'test/oparl/filters.test.ts',
      'test/oparl/decisions.test.ts',
      'test/fake-council/filters.test.ts',
    ],
  },
  'FULL-1': {
    modules: ['shared/schedule/full-sync.ts', 'shared/schedule/decide.ts', 'shared/schedule/types.ts'],
    tests: ['test/schedule/full-sync.test.ts', 'test/schedule/decide.test.ts', 'test/cli/cli.test.ts'],
  },
  'FULL-2': {
    modules: ['shared/schedule/full-sync.ts', 'shared/schedule/types.ts', 'shared/planner/tick.ts'],
    tests: ['test/schedule/full-sync.test.ts', 'test/schedule/decide.test.ts'],
  },
  'FULL-3': {
    modules: ['shared/schedule/slots.ts', 'shared/schedule/types.ts', 'shared/planner/tick.ts'],
    tests: ['test/schedule/slots.test.ts'],
  },
  'FULL-4': {
    modules: ['shared/schedule/full-sync.ts', 'shared/schedule/types.ts', 'shared/oparl/cursor.ts'],
    tests: ['test/schedule/full-sync.test.ts', 'test/oparl/full.test.ts', 'test/schedule/decide.test.ts'],
  },
  'FULL-5': {
    modules: ['shared/oparl/constants.ts', 'shared/oparl/list-task.ts', 'shared/oparl/windows.ts'],
    tests: ['test/oparl/full.test.ts', 'test/fake-council/filters.test.ts', 'test/oparl/windows.test.ts'],
  },
  'FULL-6': {
    modules: ['shared/schedule/full-sync.ts', 'shared/oparl/cursor.ts', 'shared/oparl/engine.ts'],
    tests: ['test/schedule/full-sync.test.ts', 'test/oparl/full.test.ts'],
  },
  'FULL-7': {
    modules: ['shared/schedule/full-sync.ts', 'shared/oparl/constants.ts', 'shared/oparl/list-page.ts'],
    tests: ['test/schedule/full-sync.test.ts', 'test/oparl/full.test.ts', 'test/oparl/decisions.test.ts'],
  },
  'FULL-8': {
    modules: ['shared/schedule/full-sync.ts', 'shared/schedule/types.ts', 'cli/commands/request.ts'],
    tests: ['test/schedule/full-sync.test.ts', 'test/planner/tick.test.ts'],
  },
  'ONB-1': {
    modules: ['shared/onboarding/constants.ts', 'shared/onboarding/probe.ts', 'shared/scraper/detect.ts'],
    tests: [
      'test/onboarding/probe.test.ts',
      'test/scraper/gate-detect.test.ts',
      'test/onboarding/cli.test.ts',
    ],
  },
  'ONB-2': {
    modules: ['shared/onboarding/add-source.ts', 'cli/commands/sources-add.ts', 'cli/commands/index.ts'],
    tests: ['test/onboarding/add-source.test.ts', 'test/onboarding/cli.test.ts'],
  },
  'ONB-3': {
    modules: ['shared/onboarding/add-source.ts', 'cli/commands/sync.ts', 'shared/schedule/decide.ts'],
    tests: [
      'test/onboarding/add-source.test.ts',
      'test/onboarding/cli.test.ts',
      'test/schedule/sparing.test.ts',
    ],
  },
  'ONB-4': {
    modules: ['shared/documents/text.ts', 'cli/commands/sources-add.ts', 'shared/documents/context.ts'],
    tests: ['test/onboarding/add-source.test.ts', 'test/e2e/slice.test.ts', 'test/documents/cache.test.ts'],
  },
  'DOC-1': {
    modules: ['shared/documents/decide.ts', 'infra/stack.ts', 'shared/documents/cache.ts'],
    tests: ['test/documents/cache.test.ts', 'test/config/source.test.ts', 'test/documents/decide.test.ts'],
  },
  'DOC-2': {
    modules: [
      'shared/documents/text.ts',
      'shared/documents/text-extractor.ts',
      'shared/documents/types.ts',
      'shared/documents/constants.ts',
    ],
    tests: [
      'test/documents/limits-and-text.test.ts',
      'test/documents/text-bounds.test.ts',
      'test/documents/cache.test.ts',
      'test/documents/decide.test.ts',
    ],
  },
  'DOC-3': {
    modules: ['shared/documents/cache.ts', 'shared/documents/constants.ts', 'shared/documents/decide.ts'],
    tests: [
      'test/documents/cache.test.ts',
      'test/documents/limits-and-text.test.ts',
      'test/documents/cli.test.ts',
    ],
  },
  'DOC-4': {
    modules: ['shared/documents/decide.ts', 'shared/documents/constants.ts', 'shared/documents/types.ts'],
    tests: ['test/documents/decide.test.ts', 'test/documents/cache.test.ts', 'test/fetch/errors.test.ts'],
  },
  'DOC-5': {
    modules: ['shared/documents/decide.ts', 'shared/documents/constants.ts', 'shared/documents/types.ts'],
    tests: [
      'test/documents/decide.test.ts',
      'test/documents/cache.test.ts',
      'test/documents/limits-and-text.test.ts',
    ],
  },
  'DOC-6': {
    modules: ['cli/commands/files.ts', 'shared/documents/decide.ts', 'shared/preview/decide.ts'],
    tests: ['test/documents/cache.test.ts', 'test/documents/cli.test.ts', 'test/documents/decide.test.ts'],
  },
  'DOC-7': {
    modules: ['shared/documents/text.ts', 'shared/documents/types.ts', 'shared/preview/decide.ts'],
    tests: ['test/documents/cache.test.ts', 'test/documents/decide.test.ts', 'test/oparl/sync.test.ts'],
  },
  'DEL-1': {
    modules: ['shared/documents/decide.ts', 'shared/documents/deletion.ts', 'infra/stack.ts'],
    tests: [
      'test/documents/deletion.test.ts',
      'test/fake-council/robots.test.ts',
      'test/documents/decide.test.ts',
    ],
  },
  'DEL-2': {
    modules: ['shared/documents/decide.ts', 'shared/documents/constants.ts', 'shared/documents/deletion.ts'],
    tests: [
      'test/documents/deletion.test.ts',
      'test/documents/cache.test.ts',
      'test/documents/decide.test.ts',
    ],
  },
  'DEL-3': {
    modules: ['shared/documents/decide.ts', 'shared/documents/deletion.ts', 'shared/documents/constants.ts'],
    tests: ['test/documents/decide.test.ts', 'test/documents/deletion.test.ts'],
  },
  'DEL-4': {
    modules: ['shared/documents/decide.ts', 'shared/documents/deletion.ts', 'shared/documents/constants.ts'],
    tests: ['test/documents/deletion.test.ts', 'test/documents/decide.test.ts'],
  },
  'DEL-5': {
    modules: ['shared/documents/decide.ts', 'shared/documents/deletion.ts', 'infra/stack.ts'],
    tests: ['test/documents/deletion.test.ts', 'test/documents/decide.test.ts'],
  },
  'PRV-1': {
    modules: ['shared/preview/handler.ts', 'shared/preview/decide.ts', 'shared/preview/constants.ts'],
    tests: ['test/preview/preview.test.ts', 'test/fetch/budget-events.test.ts', 'test/preview/infra.test.ts'],
  },
  'PRV-2': {
    modules: ['shared/preview/limits.ts', 'shared/preview/constants.ts', 'shared/preview/handler.ts'],
    tests: ['test/preview/preview.test.ts'],
  },
  'PRV-3': {
    modules: [
      'shared/preview/decide.ts',
      'shared/preview/constants.ts',
      'shared/preview/handler.ts',
      'shared/documents/objects.ts',
    ],
    tests: ['test/preview/preview.test.ts', 'test/preview/incoming.test.ts'],
  },
  'PRV-4': {
    modules: ['shared/preview/decide.ts', 'shared/preview/handler.ts', 'infra/stack.ts'],
    tests: ['test/preview/preview.test.ts', 'test/preview/infra.test.ts'],
  },
  'PHO-1': {
    modules: ['infra/stack.ts', 'shared/documents/decide.ts', 'shared/documents/constants.ts'],
    tests: ['test/documents/photos.test.ts', 'test/cdk/rules-page.test.ts', 'test/documents/infra.test.ts'],
  },
  'PHO-2': {
    modules: ['shared/documents/photos.ts', 'shared/documents/constants.ts', 'shared/documents/decide.ts'],
    tests: ['test/documents/photos.test.ts'],
  },
  'PHO-3': {
    modules: ['shared/documents/decide.ts', 'infra/stack.ts', 'shared/documents/photos.ts'],
    tests: ['test/documents/decide.test.ts', 'test/documents/photos.test.ts'],
  },
  'ERR-1': {
    modules: ['shared/fetch/retry.ts', 'shared/fetch/errors.ts', 'shared/fetch/fetcher.ts'],
    tests: ['test/fetch/errors.test.ts', 'test/fake-council/faults.test.ts'],
  },
  'ERR-2': {
    modules: ['shared/fetch/run-context.ts', 'shared/fetch/constants.ts', 'shared/fetch/admission.ts'],
    tests: ['test/fetch/errors.test.ts'],
  },
  'ERR-3': {
    modules: ['shared/fetch/run-context.ts', 'shared/fetch/constants.ts', 'shared/fetch/types.ts'],
    tests: ['test/fetch/errors.test.ts', 'test/schedule/sparing.test.ts', 'test/oparl/polite-port.test.ts'],
  },
  'ERR-4': {
    modules: ['shared/schedule/sparing.ts', 'shared/schedule/types.ts', 'infra/observability.ts'],
    tests: ['test/schedule/sparing.test.ts', 'test/planner/tick.test.ts', 'test/cdk/observability.test.ts'],
  },
  'ERR-5': {
    modules: ['shared/schedule/constants.ts', 'shared/schedule/sparing.ts', 'shared/schedule/types.ts'],
    tests: ['test/schedule/sparing.test.ts', 'test/planner/tick.test.ts', 'test/scraper/gate-detect.test.ts'],
  },
  'ERR-6': {
    modules: ['shared/schedule/sparing.ts', 'shared/documents/decide.ts', 'shared/preview/decide.ts'],
    tests: ['test/documents/cache.test.ts', 'test/documents/decide.test.ts', 'test/schedule/sparing.test.ts'],
  },
  'ERR-7': {
    modules: ['shared/schedule/decide.ts', 'shared/sync/run.ts', 'shared/config/source.ts'],
    tests: [
      'test/schedule/sparing.test.ts',
      'test/planner/tick.test.ts',
      'test/observability/metrics.test.ts',
    ],
  },
  'OPT-1': {
    modules: ['shared/robots/constants.ts', 'shared/robots/verdict.ts'],
    tests: ['test/robots/verdict.test.ts'],
  },
  'OPT-2': {
    modules: ['shared/mirror/store.ts', 'shared/preview/decide.ts', 'shared/mirror/types.ts'],
    tests: ['test/takedown/tombstone.test.ts', 'test/mirror/store.test.ts', 'test/preview/preview.test.ts'],
  },
  'OPT-3': {
    modules: ['cli/commands/takedown.ts', 'shared/takedown/purge.ts', 'cli/commands/index.ts'],
    tests: ['test/takedown/purge.test.ts', 'test/onboarding/cli.test.ts'],
  },
  'OPT-4': {
    modules: ['cli/commands/sources.ts', 'shared/onboarding/host-knobs.ts', 'shared/config/source.ts'],
    tests: ['test/onboarding/cli.test.ts', 'test/pace/host-spellings.test.ts'],
  },
  'OPT-5': {
    modules: [
      'shared/takedown/registry.ts',
      'shared/takedown/guard.ts',
      'shared/takedown/seal.ts',
      'shared/takedown/lift.ts',
      'shared/store/takedowns.ts',
      'shared/takedown/embedders.ts',
      'shared/takedown/tombstone.ts',
      'shared/engine/write.ts',
      'shared/mirror/store.ts',
    ],
    tests: [
      'test/takedown/permanent.test.ts',
      'test/takedown/permanent-scraper.test.ts',
      'test/takedown/permanent-documents.test.ts',
      'test/takedown/embedded.test.ts',
      'test/takedown/sync-race.test.ts',
      'test/takedown/invalid-config.test.ts',
      'test/takedown/lift-race.test.ts',
    ],
  },
  'OTH-1': {
    modules: ['shared/other-fetch/fetch.ts', 'shared/fetch/fetcher.ts', 'shared/fetch/constants.ts'],
    tests: ['test/other-fetch/other-fetch.test.ts'],
  },
  'OTH-2': {
    modules: [
      'shared/other-fetch/fetch.ts',
      'shared/fetch/host-slot.ts',
      'shared/fetch-runtime/host-intervals.ts',
      'cli/aws/shared-slots.ts',
    ],
    tests: ['test/other-fetch/other-fetch.test.ts', 'test/geo/infra.test.ts'],
  },
  'OTH-3': {
    modules: [
      'shared/fetch/admission.ts',
      'shared/geo/run.ts',
      'shared/geo/refresh.ts',
      'shared/store/sources.ts',
      'cli/commands/geo.ts',
    ],
    tests: [
      'test/other-fetch/other-fetch.test.ts',
      'test/geo/sources.test.ts',
      'test/geo/cli.test.ts',
      'test/store/other-items.test.ts',
    ],
  },
  'OTH-4': {
    modules: [
      'shared/geo/refresh.ts',
      'shared/geo/normalise.ts',
      'shared/geo/geometry.ts',
      'shared/geo/protocol.ts',
      'shared/geo/errors.ts',
      'shared/other-fetch/errors.ts',
      'shared/geo/paper-refs.ts',
      'shared/config/geo-source.ts',
      'infra/stack.ts',
    ],
    tests: [
      'test/geo/refresh.test.ts',
      'test/geo/plan-references.test.ts',
      'test/geo/sources.test.ts',
      'test/geo/infra.test.ts',
      'test/e2e/start.test.ts',
    ],
  },
  'OTH-5': {
    modules: [
      'shared/broadcasts/constants.ts',
      'shared/broadcasts/decide.ts',
      'shared/broadcasts/detect.ts',
      'shared/broadcasts/run.ts',
      'shared/broadcasts/store.ts',
      'shared/other-fetch/errors.ts',
    ],
    tests: [
      'test/broadcasts/cli.test.ts',
      'test/broadcasts/decide.test.ts',
      'test/broadcasts/detect.test.ts',
      'test/broadcasts/pass.test.ts',
      'test/broadcasts/infra.test.ts',
    ],
  },
  'B-1': {
    modules: ['shared/documents/decide.ts', 'shared/robots/cache.ts', 'shared/documents/deletion.ts'],
    tests: [
      'test/documents/deletion.test.ts',
      'test/documents/photos.test.ts',
      'test/robots/verdict.test.ts',
    ],
  },
  'B-2': {
    modules: ['shared/slots/scripts.ts', 'shared/fetch/retry.ts'],
    tests: ['test/fetch/redis-slots.test.ts', 'test/fetch/robots.test.ts'],
  },
  'B-3': {
    modules: [
      'shared/fetch/plan.ts',
      'shared/fetch/types.ts',
      'shared/fetch/user-agent.ts',
      'shared/config/user-agent.ts',
    ],
    tests: [
      'test/scraper/gate-detect.test.ts',
      'test/fetch/identity.test.ts',
      'test/scraper/engine.test.ts',
      'test/config/user-agent.test.ts',
    ],
  },
  'B-4': {
    modules: ['shared/mirror/types.ts', 'shared/oparl/index.ts'],
    tests: ['test/mirror/store.test.ts'],
  },
};

/** docs/rules.md as the constants render it. */
export function renderRulesBook(c: RulesConstants): string {
  const lines: string[] = [
    '<!-- Generated by `npx tsx scripts/generate-rules-page.ts` from the constants in the code. Do not edit by hand: test/docs/rules-book.test.ts checks that book, code and tests agree. -->',
    '# The rule book of the mandari ingestor',
    '',
    'Every rule the ingestor keeps when it fetches from council systems, numbered. Tests, comments and issues cite these IDs (ROB-7, RATE-4, OPT-5 …); older comments say "SPEC ROB-7" and mean the same rule. The rules follow the published fetch rules for municipalities, whose German page is generated from the same constants: [abrufregeln.md](abrufregeln.md); where this book and the published rules seem to differ, the published rules win. Rules marked "(our addition)" go beyond them and only ever make the ingestor slower or more careful.',
    '',
    `Package version ${c.version}. Every number below is rendered from the constant the code runs on. "Server" or "host" is the hostname, lower-cased, without port; all times of day are Europe/Berlin. Under each rule: the modules that keep it and the tests that prove it.`,
    '',
  ];
  for (const section of bookSections(c)) {
    lines.push(`## ${section.title}`, '');
    if (section.intro) lines.push(section.intro, '');
    for (const rule of section.rules) {
      // A trailing backslash is a hard line break: the rule's home goes on its own line.
      lines.push(`- **${rule.id}** ${rule.text}\\`);
      if (rule.home === NOT_YET) lines.push(`  *Status: ${NOT_YET}.*`);
      else {
        const paths = (p: readonly string[]) => p.map((x) => `\`${x}\``).join(', ');
        lines.push(`  *Kept in* ${paths(rule.home.modules)}. *Proven by* ${paths(rule.home.tests)}.`);
      }
    }
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
