import { DAY_MS, HOUR_MS, MINUTE_MS } from '../util';
import type { RulesConstants } from './rules-constants';

/**
 * The page for municipalities (docs/abrufregeln.md), in German: every rule with its SPEC number, every
 * number taken from a `RulesConstants` object — never written into the text by hand. Pure: the same
 * constants give the same page, byte for byte (the docs test regenerates and compares).
 */

/** German number: decimal comma, no thousands separator below 10 000 (as the published rules write). */
export function zahl(n: number): string {
  const text = Number.isInteger(n) ? String(n) : String(Math.round(n * 1000) / 1000).replace('.', ',');
  return Math.abs(n) >= 10_000 && Number.isInteger(n) ? n.toLocaleString('de-DE') : text;
}

function plural(n: number, one: string, many: string): string {
  return `${zahl(n)} ${n === 1 ? one : many}`;
}

/**
 * A duration in the largest whole German unit: days from a week on, else hours, minutes, seconds.
 * `dativ` for "nach/vor/in … Tagen".
 */
export function dauer(ms: number, kasus: 'nominativ' | 'dativ' = 'nominativ'): string {
  if (ms >= 7 * DAY_MS && ms % DAY_MS === 0)
    return plural(ms / DAY_MS, 'Tag', kasus === 'dativ' ? 'Tagen' : 'Tage');
  if (ms >= HOUR_MS && ms % HOUR_MS === 0) return plural(ms / HOUR_MS, 'Stunde', 'Stunden');
  if (ms >= MINUTE_MS && ms % MINUTE_MS === 0) return plural(ms / MINUTE_MS, 'Minute', 'Minuten');
  return plural(ms / 1000, 'Sekunde', 'Sekunden');
}

/** Bytes as published: binary units where the code counts in KiB/MiB, else decimal MB. */
export function groesse(bytes: number): string {
  if (bytes % 1_000_000 === 0) return `${zahl(bytes / 1_000_000)} MB`;
  if (bytes % (1024 * 1024) === 0) return `${zahl(bytes / (1024 * 1024))} MiB`;
  if (bytes % 1024 === 0) return `${zahl(bytes / 1024)} KiB`;
  return `${zahl(bytes / 1_000_000)} MB`;
}

/** "a, b, c und d" (or "… oder d"). */
export function aufzaehlung(items: readonly string[], last: 'und' | 'oder' = 'und'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

const uhr = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

function datum(iso: string): string {
  const [y, m, d] = iso.slice(0, 10).split('-');
  return `${d}.${m}.${y}`;
}

/** SCH-3 from the constants: the interval after each of the first `count` quiet syncs. */
export function quietSequence(c: RulesConstants['cadence'], baseMinutes: number, count: number): number[] {
  const ceiling = Math.max(c.quietCeilingMinutes, baseMinutes);
  return Array.from({ length: count }, (_, i) =>
    Math.min(baseMinutes * 2 ** Math.floor(i / c.quietSyncsPerDoubling), ceiling),
  );
}

/** ERR-4 from the constants: 10, 20, 40 … up to the maximum. */
export function sparingSequence(l: RulesConstants['errors']['ladder']): number[] {
  const steps: number[] = [];
  let minutes = l.firstPauseMinutes;
  while (minutes < l.maxPauseMinutes && steps.length < 50) {
    steps.push(minutes);
    minutes *= l.factor;
  }
  steps.push(l.maxPauseMinutes);
  return steps;
}

function base(c: RulesConstants, id: string): number {
  return c.cadence.periods.find((p) => p.id === id)?.baseMinutes ?? Number.NaN;
}

export function renderRulesPage(c: RulesConstants): string {
  const day = base(c, 'weekdayDay');
  const night = base(c, 'weekdayNight');
  const weekend = base(c, 'weekend');
  const dayHours = `${uhr(c.cadence.weekdayDayStartHour)}–${uhr(c.cadence.weekdayDayEndHour)}`;
  const nightHours = `${uhr(c.cadence.weekdayDayEndHour)}–${uhr(c.cadence.weekdayDayStartHour)}`;
  const agent = `${c.identity.productToken}/${c.version} (+${c.identity.infoUrl}; ${c.identity.contact})`;
  const cf = c.cadence.checkFigure;
  const ladder = sparingSequence(c.errors.ladder);
  const f = c.errors.firstTimePauseMinutes;
  const fullEnd = (c.full.defaultHour + c.full.windowHours) % 24;
  const comparisonAgent =
    c.identity.comparisonUserAgent === null
      ? 'sie sendet keinen User-Agent-Kopf'
      : `sie sendet \`User-Agent: ${c.identity.comparisonUserAgent}\``;
  const lines: string[] = [];
  const p = (...text: string[]) => lines.push(...text, '');

  p(
    '<!-- Generiert von `npx tsx scripts/generate-rules-page.ts` aus den Konstanten im Code. Nicht von Hand ändern: test/docs prüft, dass Seite und Code übereinstimmen. -->',
    '# Abrufregeln des mandari-Ingestors, Opt-out und Takedown',
    `Stand: Paketversion ${c.version}. Alle Zahlen auf dieser Seite stammen aus den Konstanten, mit denen der Ingestor arbeitet; ändert sich eine, ändert sich diese Seite mit. Jede Regel trägt ihre Nummer (z. B. **ROB-7**); unter dieser Nummer finden Sie sie in unserer technischen Referenz und in den Tests wieder. Alle Uhrzeiten sind Ortszeit Europe/Berlin.`,
  );
  p(
    'mandari spiegelt öffentliche Ratsinformationen. Dazu ruft der Ingestor die OParl-Schnittstellen kommunaler Ratsinformationssysteme ab und, wo es keine gibt, deren HTML-Seiten, dazu die Dokumente (meist PDF). Kommunale Server sind oft klein; deshalb gelten für jeden Abruf dieselben festen Regeln. Diese Seite fasst sie zusammen und zeigt, wie Sie als Kommune den Abruf drosseln oder ausschließen oder Inhalte entfernen lassen.',
  );

  p('## Auf einen Blick');
  p('### Drosseln oder ausschließen');
  p(
    `1. **OPT-1** robots.txt: Eine Gruppe für \`${c.identity.productToken}\` wirkt spätestens nach ${dauer(c.robots.cacheTtlMs)}, ohne dass wir etwas tun müssen — für Schnittstelle, HTML-Seiten, Dokumente und das Ziel jeder Weiterleitung (siehe robots.txt und die Beispiele dort).`,
    `2. **OPT-4** Kontakt: Schreiben Sie an ${c.identity.contact}. Wir können für Ihre Quelle den Abstand je Anfrage erhöhen (bis ${plural(c.rate.maxSourceIntervalSeconds, 'Sekunde', 'Sekunden')}), je Tageszeit seltener abgleichen, den Vollabgleich in ein Zeitfenster legen, ihn seltener (Mindestabstand in Tagen) oder nur in Zeitscheiben ausführen, den Dateiabruf abschalten oder Ihr System gar nicht mehr abrufen. Liegen mehrere Quellen auf Ihrem Server, stellen wir das bei allen ein.`,
  );
  p('### Inhalte entfernen (Takedown)');
  p(
    '1. **OPT-2** Tombstone: Betroffene Objekte werden als gelöscht markiert. Sie verschwinden sofort aus allen Ausgaben (Spiegel, Exporte, Schnittstellen); die Daten bleiben für Prüfzwecke erhalten.',
    '2. **OPT-3** Physische Löschung auf ausdrückliche Aufforderung der Kommune, einschließlich der Texte (Suchindex) und unserer Dateikopien. Zuerst zeigt eine Vorschau, was gelöscht würde; erst die Bestätigung löscht:',
    '',
    '   ```',
    '   npx ingestor purge-deleted --body <slug>          # Vorschau',
    '   npx ingestor purge-deleted --body <slug> --yes    # endgültig löschen',
    '   ```',
    '',
    '3. Abwägung: Opt-out-Wünsche prüfen wir, wir führen sie nicht blind aus; amtliche Informationen haben ein Transparenzinteresse. Mindestens einen langsameren Takt und ein Zeitfenster für den Vollabgleich bieten wir immer an. Reaktionszeit: fünf Werktage.',
  );

  p('## Kennung (ID)');
  p(
    `- **ID-1** Jede Anfrage an ein Ratsinformationssystem meldet sich mit \`User-Agent: ${agent}\`. Die Version ist die Paketversion des Ingestors und kann sich ändern; prüfen Sie deshalb auf den Anfang \`${c.identity.productToken}\`. Wer den Ingestor selbst betreibt, setzt die Kennung mit \`INGESTOR_USER_AGENT\` (älterer Name \`SCRAPER_USER_AGENT\`).`,
    '- **ID-2** Anfragen an die Schnittstelle senden `Accept: application/json`, Abrufe der robots.txt `Accept: text/plain`.',
    `- **ID-3** Für einzelne Quellen können wir eine andere Kennung einstellen, für Schnittstelle, HTML-Seiten und Dateien gleichermaßen — gedacht für Ausnahmen, etwa wenn ein Server bestimmte Wörter im User-Agent filtert. Die robots.txt wird dann mit dieser Kennung abgerufen und ausgewertet; Regeln für \`${c.identity.productToken}\` gelten trotzdem (ROB-3).`,
    `- **ID-4** Vergleichsanfrage nach HTTP 403: Antwortet ein Server dem Abgleich mit 403, stellen wir je Server und Lauf einer Quelle genau eine Vergleichsanfrage mit der Voreinstellung unserer HTTP-Bibliothek (undici) — ${comparisonAgent}. Die Anfrage geht an die Adresse, die 403 geliefert hat, im Takt und innerhalb der Grenze gleichzeitiger Anfragen, und folgt keiner Weiterleitung. Nur eine erfolgreiche Antwort (2xx) werten wir als Sperre unseres User-Agents; eine Weiterleitung oder eine ausbleibende Antwort lässt das offen. Das dient allein der Diagnose: Abgerufen wird weiter nur mit unserer Kennung, und die Quelle wird geschont (ERR-5). Dieselbe Vergleichsanfrage stellt die Sondierung (ONB-1) nach einem 403 auf die Startseite.`,
    '- Absender: Der Ingestor läuft in Rechenzentren von Amazon Web Services; seine Absenderadressen wechseln. Erkennen Sie uns deshalb am User-Agent, nicht an einer IP-Adresse. Wir wechseln weder Adressen, um Sperren zu umgehen, noch verstellen wir die Kennung (B-3).',
  );

  p('## robots.txt (ROB)');
  p(
    `- **ROB-1** Gruppen: Für uns gelten alle Gruppen, deren \`User-agent\` unserem Token \`${c.identity.productToken}\` entspricht, ohne Unterschied in der Groß- und Kleinschreibung. Gibt es keine, gelten die Gruppen für \`*\`; gibt es auch die nicht, ist alles erlaubt. Eine Gruppe für \`${c.identity.productToken}\` gilt also anstelle von \`*\`, nicht zusätzlich.`,
    '- **ROB-2** Regeln: Die längste passende Regel entscheidet, bei gleicher Länge `Allow`. `*` steht für beliebig viele Zeichen, `$` verankert das Ende. Verglichen werden Pfad und Abfrage, Groß- und Kleinschreibung zählt, nach der Prozent-Normalisierung von RFC 9309.',
    `- **ROB-2a** Wo RFC 9309 Spielraum lässt, lesen wir wie Googles Referenz-Parser, gegen den Kommunen ihre Datei meist prüfen: Ein \`User-agent\`-Wert zählt mit seinem führenden Token (\`${c.identity.productToken}/1.2\` wählt unsere Gruppe), \`* text\` ist die globale Gruppe, übliche Tippfehler in Schlüsselwörtern und ein fehlender Doppelpunkt werden akzeptiert, \`Allow: …/index.html\` erlaubt auch \`…/\`.`,
    `- **ROB-3** Token: Geprüft wird das Token der gesendeten Kennung und immer zusätzlich \`${c.identity.productToken}\`; beide müssen den Abruf erlauben. Gruppen für unsere früheren Kennungen ${aufzaehlung(c.identity.legacyTokens.map((t) => `\`${t}\``))} gelten zusätzlich, aber nur, wenn es sie gibt, und sie können nur sperren.`,
    '- **ROB-4** Geltung: für Schnittstelle, HTML-Seiten und Dateien, auch für das Ziel jeder Weiterleitung. `/robots.txt` selbst ist immer erlaubt.',
    `- **ROB-5** Zwischenspeicher: ${dauer(c.robots.cacheTtlMs)} je Hostname und Kennung. Schema, Port und Schreibweise ergeben keinen eigenen Eintrag: \`https://RIS.example.de:443/\`, \`http://ris.example.de/\` und \`https://ris.example.de:8443/\` teilen sich eine robots.txt, so wie sie sich den Takt teilen. Geladen wird sie mit Schema und Port der ersten Anfrage, die sie braucht. Ausgewertet werden höchstens ${groesse(c.robots.maxBytes)}.`,
    '- **ROB-6** Nicht vorhanden: Ein 4xx-Status (auch 401, 403, 406) gilt als „keine robots.txt“, also ist alles erlaubt.',
    `- **ROB-7** Nicht erreichbar: 5xx, 408, 429, ein Netzfehler oder mehr als ${plural(c.redirects.max, 'Weiterleitung', 'Weiterleitungen')}. Gab es vorher eine gültige Fassung, gilt sie weiter, bis ein Abruf wieder gelingt. Gab es keine, fragen wir nichts an, sondern stellen den Abruf zurück und rufen die robots.txt frühestens nach ${dauer(c.robots.unreachableRetryMs)} erneut ab. Eine nicht erreichbare robots.txt gilt nie als Erlaubnis.`,
    `- **ROB-8** Gesperrt: Wir stellen die Anfrage nicht. Lässt die robots.txt an einem Server keine einzige Anfrage einer Quelle zu, versucht der Abgleich es frühestens nach ${dauer(c.robots.allowsNothingRetryMs)} wieder.`,
    '- **ROB-9** Ausnahmen gibt es nur mit Freigabe der zuständigen Stelle und einem Vermerk in der Konfiguration der Quelle, für die Schnittstelle, für Dateien oder für beides. Ohne gültigen Vermerk gilt die robots.txt.',
    `- **ROB-10** \`Crawl-delay\` in der für uns geltenden Gruppe beachten wir als Untergrenze des Abstands zwischen zwei Anfragen an Ihren Server, höchstens ${plural(c.robots.crawlDelayCapSeconds, 'Sekunde', 'Sekunden')}; \`Sitemap\` werten wir nicht aus.`,
  );
  p('Beispiele:');
  p(
    '```',
    `# mandari ganz ausschließen`,
    `User-agent: ${c.identity.productToken}`,
    'Disallow: /',
    '',
    '# Adressen sperren, die auf .pdf enden; die Schnittstelle bleibt frei',
    `User-agent: ${c.identity.productToken}`,
    'Disallow: /*.pdf$',
    '```',
  );
  p(
    `Liegen Ihre Dokumente unter anderen Adressen, etwa \`getfile.asp?id=…\`, sperren Sie deren Pfad. Groß- und Kleinschreibung zählt: \`.pdf\` erfasst nicht \`.PDF\`. Gibt es eine Gruppe für \`${c.identity.productToken}\`, gelten die Regeln unter \`User-agent: *\` für uns nicht mehr; wiederholen Sie in unserer Gruppe, was auch für uns gelten soll.`,
  );

  p('## Takt (RATE)');
  p(
    `- **RATE-1** Eine Anfrage pro ${c.rate.minIntervalSeconds === 1 ? 'Sekunde' : plural(c.rate.minIntervalSeconds, 'Sekunde', 'Sekunden')} je Server. Vor jeder Anfrage — auch vor jeder Weiterleitung und vor jedem Abruf einer robots.txt — reserviert der Abruf einen Zeitpunkt für den Server in einem gemeinsamen Speicher (Redis), der für alle Funktionen und Werkzeuge gilt. „Server“ heißt: der Hostname, ohne Port und ohne Unterschied in der Schreibweise. Liegen mehrere Kommunen auf demselben Server, teilen sie sich diesen Takt.`,
    `- **RATE-2** Je Quelle nur langsamer: bis ${plural(c.rate.maxSourceIntervalSeconds, 'Sekunde', 'Sekunden')} Abstand; kleinere Werte als ${plural(c.rate.minIntervalSeconds, 'Sekunde', 'Sekunden')} gelten als ${plural(c.rate.minIntervalSeconds, 'Sekunde', 'Sekunden')}. Der größte Abstand, der für eine Quelle auf einem Hostnamen eingestellt ist, gilt für jeden Abruf an diesen Hostnamen, spätestens ${dauer(c.rate.hostIntervalRefreshMs)} nach der Änderung.`,
    `- **RATE-3** Scraper-Quellen (Systeme ohne OParl-Schnittstelle) fragen standardmäßig alle ${plural(c.rate.scraperIntervalSeconds, 'Sekunde', 'Sekunden')} an, nie schneller als einmal je ${c.rate.minIntervalSeconds === 1 ? 'Sekunde' : plural(c.rate.minIntervalSeconds, 'Sekunde', 'Sekunden')}, und streng nacheinander.`,
    `- **RATE-4** Höchstens ${zahl(c.rate.maxInFlightPerHost)} Anfragen gleichzeitig je Server — für Abgleich, Scraper, Texterkennung und Vergleichsanfrage zusammen. Weil bei uns viele Funktionsinstanzen zugleich laufen, halten wir diese Grenze über den gemeinsamen Speicher für alle Instanzen zusammen ein, nicht nur je Prozess.`,
    '- **RATE-5** Folgt ein Abruf einer Weiterleitung auf einen anderen Server, zieht sein Platz vorher dorthin mit; am Ziel gelten Takt und Grenze ebenso.',
    `- **RATE-6** Löschabgleich: zusätzlich mindestens ${dauer(c.rate.deletionCheckSpacingMs)} zwischen zwei Prüfungen an demselben Server innerhalb eines Laufs; die Nachprüfung per GET nach einer unklaren HEAD-Stichprobe läuft nur im gemeinsamen Takt.`,
    `- **RATE-7** Ohne den gemeinsamen Speicher drosselt jeder Prozess für sich und versucht es nach ${dauer(c.rate.sharedStoreRetryMs)} wieder mit Redis. In dieser Zeit verlängert jeder Prozess seinen Abstand um ${dauer(c.rate.fallbackSlackMs)} und vervielfacht ihn mit der Zahl der Instanzen, die höchstens gleichzeitig abrufen können (mindestens ${c.rate.fallbackMinCycleSlots}); so bleibt auch dann die Grenze für alle zusammen gewahrt. Einen Server ruft ein Prozess dann nur weiter ab, wenn er dort in der letzten Runde vor dem Ausfall an der Reihe war (mindestens in den letzten ${c.rate.fallbackPhaseMinSlots} Abrufen); sonst wartet er dort, bis Redis wieder antwortet.`,
    `- **RATE-8** \`Retry-After\` bei HTTP 429 oder 503 (Sekunden oder Datum) beachten wir: Vorher geht keine Anfrage an diesen Server, höchstens ${dauer(c.rate.retryAfterCapMs)} lang und zusätzlich zu jeder Pause unten; eine Pause verkürzt es nie.`,
    `- **RATE-9** Ein Server, ein Takt: Betreiben Sie als Rechenzentrum die Ratsinformationssysteme vieler Kommunen auf einem Server, teilen sich alle diese Kommunen seinen Takt — Sie sehen einen einzigen, gleichmäßigen Besucher, nie einen je Kommune. Reicht der Takt nicht für den gewünschten Abgleichrhythmus aller Kommunen, gilt der Takt: Wir gleichen dann jede Kommune auf diesem Server um denselben Faktor seltener ab, keine fällt heraus, und nachts verteilen wir die Vollabgleiche auf mehrere Nächte. Dokumente, Personenfotos und die Dokumentvorschau rufen im selben Takt ab und bekommen davon nur einen Teil; ist er aufgebraucht, warten sie (die Vorschau bittet die Besucherin dann, es etwas später noch einmal zu versuchen).`,
  );

  p('## Weiterleitungen (RED)');
  p(
    `- **RED-1** Wir folgen höchstens ${plural(c.redirects.max, 'Weiterleitung', 'Weiterleitungen')} je Abruf; eine weitere beendet den Abruf mit einem Fehler.`,
    '- **RED-2** Vor jeder Weiterleitung prüfen wir (1) ob das Ziel eine öffentliche Adresse ist (nicht lokal, privat, Link-local, Metadaten-Dienst, Multicast …; geprüft auf der Adresse, mit der wir tatsächlich verbinden), (2) die robots.txt des Ziel-Servers, mit derselben Kennung wie die erste Anfrage, und (3) einen eigenen Zeitpunkt im Takt des Ziel-Servers.',
    '- **RED-3** Sperrt die robots.txt das Ziel, folgen wir nicht. Ist sie nicht erreichbar, stellen wir den Abruf zurück.',
  );

  p('## Wann wir abrufen: Änderungsabgleich (SCH)');
  const seq = quietSequence(c.cadence, day, 13);
  p(
    `- **SCH-1** Jede Quelle hat ihren eigenen Takt. Grundabstand je Tageszeit: werktags ${dayHours} Uhr **${plural(day, 'Minute', 'Minuten')}**, werktags ${nightHours} Uhr **${plural(night, 'Minute', 'Minuten')}**, Samstag und Sonntag **${plural(weekend, 'Minute', 'Minuten')}**. Feiertage zählen als Werktage. Für einzelne Quellen stellen wir den Takt auf Wunsch langsamer ein, für jede Tageszeit getrennt; in einer eigenen Installation setzt \`INGESTOR_INTERVAL\` den Grundabstand werktags ${dayHours} Uhr.`,
    `- **SCH-2** Sitzungstage: Als Sitzungstag zählt ein Tag, an dem laut unserem Bestand eine Sitzung einer Kommune der Quelle beginnt; abgesagte und von der Quelle gelöschte Sitzungen zählen nicht, Wochenenden schon. An einem Sitzungstag und am Tag davor beträgt der Abstand höchstens ${plural(c.cadence.sessionDayCapMinutes, 'Minute', 'Minuten')}.`,
    `- **SCH-3** Ruhe: Jeder Abgleich zählt, auch der erste einer Tageszeit; nach je ${zahl(c.cadence.quietSyncsPerDoubling)} Abgleichen in Folge ohne Änderung verdoppelt sich der Abstand, höchstens bis ${plural(c.cadence.quietCeilingMinutes, 'Minute', 'Minuten')} (an Sitzungstagen und am Vortag bis ${plural(c.cadence.sessionDayCapMinutes, 'Minute', 'Minuten')}). Werktags ab ${uhr(c.cadence.weekdayDayStartHour)} Uhr: ${seq.map(zahl).join(', ')} … Minuten (Abgleiche um ${cf.weekdayDaySequence.join(', ')} …). Ein Abgleich mit Änderung setzt den Abstand auf den Grundabstand der Tageszeit zurück, ebenso ein Abgleich in einer anderen Tageszeit als der vorige.`,
    `- **SCH-4** Der Abstand zählt ab dem Ende des vorigen Abgleichs. Beginnt vorher eine Tageszeit mit kürzerem Grundabstand, ist der Abgleich zu deren Beginn fällig — etwa um ${uhr(c.cadence.weekdayDayStartHour)} statt um ${String(c.cadence.weekdayDayStartHour).padStart(2, '0')}:30 Uhr, um ${uhr(c.cadence.weekdayDayEndHour)} Uhr, wenn der Abstand des Tages über ${plural(night, 'Minute', 'Minuten')} gewachsen ist, und Montag 00:00 Uhr nach einem Wochenende.`,
    `- **SCH-5** Je Quelle läuft höchstens ein Abgleich zugleich; standardmäßig gleicht der Ingestor höchstens ${zahl(c.cadence.maxConcurrentSyncs)} Quellen gleichzeitig ab. Der Takt je Server gilt unabhängig davon.`,
    `- **SCH-6** Wenig Last ohne Änderungen: Ändert sich nichts und steht keine Sitzung an, sind das je Quelle an einem Wochenendtag ${zahl(cf.weekendDaySyncs)} Abgleiche, werktags ${nightHours} Uhr ${zahl(cf.weekdayNightSyncs)} und ${dayHours} Uhr ${zahl(cf.weekdayDaySyncs)} — in einer Woche ab Montag 00:00 Uhr **${zahl(cf.weekSyncs)}** statt ${zahl(cf.flatTenMinuteWeekSyncs)} bei festen 10 Minuten (Montag bis ${uhr(c.cadence.weekdayDayStartHour)} Uhr: ${zahl(cf.split.mondayBefore07)}, fünf Tage: ${zahl(cf.split.fiveWeekdayDays)}, vier volle Nächte: ${zahl(cf.split.fourFullNights)}, Freitag ab ${uhr(c.cadence.weekdayDayEndHour)} Uhr: ${zahl(cf.split.fridayAfter19)}, Wochenende: ${zahl(cf.split.weekend)}).`,
    '- **SCH-7** Schonung geht vor: Eine Quelle in Schonung (ERR-5) gleichen wir nicht ab, auch nicht auf Anforderung von Hand. Ein Abgleich von Hand hält robots.txt, den Takt je Server sowie Zeitfenster und Mindestabstand des Vollabgleichs ein.',
    `- **SCH-8** Gefragt wird jede Liste nur nach Änderungen (OParl-Filter \`modified_since\`). Ohne Änderungen kostet das bei einem System, das den Filter auswertet, eine Seite je Liste. Die Kommunenliste lesen wir über alle Seiten (\`links.next\`), höchstens ${zahl(c.lists.bodyListMaxPages)}; eine Seite, die die vorige wiederholt (ein System, das unter jeder Seitennummer dieselbe Seite liefert), beendet sie.`,
    `- **SCH-9** Änderungsfenster: Gefragt wird nach Änderungen seit dem Beginn des letzten vollständigen Abgleichs der Kommune, mit ${dauer(c.lists.changeWindowMarginMs)} Sicherheitsabstand, höchstens aber der letzten ${dauer(c.lists.changeWindowMaxMs)}. Dieses Fenster bekommen nur Listen, deren Änderungsdatum nachweislich eine Uhrzeit trägt; die übrigen, auch neue Listen und Listen ohne bisher gesehene Änderung, fragen wir ab Tagesbeginn an.`,
    `- **SCH-10** Ohne Filter: Lehnt ein System den Filter ab oder ignoriert ihn, lesen wir die Liste von vorn, vergleichen selbst und hören nach ${plural(c.lists.unfilteredStopPages, 'Seite', 'Seiten')} ohne Änderung auf. Nach jedem Vollabgleich prüfen wir mit einer Anfrage, ob Ihr System nach Änderungsdatum filtert; bringt sie keine Aussage, wiederholen wir sie einmal nach ${dauer(c.lists.filterRecheckDelayMs)}.`,
    `- **SCH-11** Fehlende Listen: Optionale Listen (Mitgliedschaften, Tagesordnungspunkte, Beratungen, Dateien, Orte), die Ihr System nicht anbietet, vermerken wir. Der Änderungsabgleich fragt sie höchstens alle ${dauer(c.lists.missingListRecheckMs)} wieder an, der Vollabgleich jedes Mal, der Vollabgleich in Zeitscheiben nie. Meldet ein SD.NET-System auf diese Prüfung nur „keine Treffer“, bleibt der Vermerk; die nächste Prüfung folgt nach ${dauer(c.lists.missingListRecheckMs)}.`,
    `- **SCH-12** Langsame Listen: Blieb die letzte Anfrage einer optionalen Liste ${dauer(c.lists.slowListTimeoutMs)} ohne Antwort oder endete mit HTTP 504, lassen wir diese Liste zunächst ${plural(c.lists.slowListSkipHours[0] ?? Number.NaN, 'Stunde', 'Stunden')} aus, nach jeder weiteren Zeitüberschreitung in Folge länger: ${aufzaehlung(c.lists.slowListSkipHours.map(zahl))} Stunden, höchstens ${plural(c.lists.slowListSkipHours[c.lists.slowListSkipHours.length - 1] ?? Number.NaN, 'Stunde', 'Stunden')}. Auch der Vollabgleich lässt sie so lange aus und zählt dann nicht als vollständig. Andere Fehler setzen keine Liste aus. Danach holen wir die Änderungen der Liste nach, bei Systemen, die nach Änderungsdatum filtern, in Abschnitten zu ${plural(c.lists.catchUpChunkDays, 'Tag', 'Tagen')} (\`modified_since\` und \`modified_until\`). Pflichtlisten (Gremien, Personen, Sitzungen, Vorlagen) setzen wir nie aus.`,
  );
  p('Wertet Ihre Schnittstelle `modified_since` aus, bleibt unsere Last am kleinsten.');

  p('## Vollabgleich (FULL)');
  p(
    `- **FULL-1** Höchstens einmal je Zeitfenster liest der Ingestor alle Listen einer Quelle vollständig, als Sicherheitsnetz für Änderungen, die ein Filter nicht meldet. Standardfenster: ab ${uhr(c.full.defaultHour)} Uhr (\`INGESTOR_FULL_SYNC_HOUR\`) für ${plural(c.full.windowHours, 'Stunde', 'Stunden')}, also bis ${uhr(fullEnd)} Uhr. Läuft zu Beginn noch ein Änderungsabgleich der Quelle, folgt der Vollabgleich direkt danach. Während er läuft, ruhen nur die Änderungsabgleiche derselben Quelle.`,
    '- **FULL-2** Einmal je Nacht: Bricht ein Vollabgleich ab oder bleibt er unvollständig, wiederholen wir ihn erst im nächsten Fenster, auch nach einem Neustart.',
    `- **FULL-3** Vollabgleiche belegen höchstens alle Plätze des Ingestors bis auf ${zahl(c.full.slotsKeptForIncremental)} (standardmäßig also ${zahl(c.cadence.maxConcurrentSyncs - c.full.slotsKeptForIncremental)} von ${zahl(c.cadence.maxConcurrentSyncs)}); ist keiner frei, wartet der Vollabgleich, solange das Fenster offen ist, und die Quelle wird derweil in ihrem Takt abgeglichen. Einen frei werdenden Platz bekommt zuerst die Quelle, deren letzter Vollabgleich am längsten zurückliegt.`,
    '- **FULL-4** Je Quelle: ein Mindestabstand in Tagen und ein eigenes Zeitfenster (auch über Mitternacht). Mit eigenem Fenster beginnt der Vollabgleich nur darin, und nach dessen Ende holt der Ingestor keine weitere Seite; offene Listen kommen beim nächsten Mal dran. Das Standardfenster begrenzt nur den Beginn: Ein begonnener Vollabgleich läuft zu Ende. (Bei Scraper-Quellen endet ein begonnener Vollabgleich derzeit nicht mit dem Fenster.)',
    `- **FULL-5** In Zeitscheiben — für Server, die vollständige Listen nicht ausliefern (etwa HTTP 504 nach ${dauer(c.lists.slowListTimeoutMs)}): Jede Liste wird in Zeitscheiben gelesen, von alt nach neu, mit \`modified_since\` und \`modified_until\` (OParl 1.1) auf jeder Seite, nie ohne Filter: Lehnt der Server den Filter ab, bleibt die Liste offen. Jede Scheibe kostet mindestens eine Anfrage, auch leer. Eine Scheibe für alles vor dem ${datum(c.full.sliceEpochLocal)} (nur \`modified_until\`), dann Scheiben zu ${plural(c.full.sliceDays, 'Tag', 'Tagen')} bis zu der, die den heutigen Tag enthält — am ${datum(c.full.slicesExampleDate)} sind das ${zahl(c.full.slicesOnExampleDate)} Scheiben je Liste.`,
    '- **FULL-6** Zeitscheiben nur im Fenster der Quelle (eigenes oder Standardfenster), immer mit ihm endend; außerhalb und ohne Fenster (etwa von der Kommandozeile) läuft stattdessen ein Änderungsabgleich. Der nächste Vollabgleich setzt an der letzten vollständigen Scheibe fort.',
    `- **FULL-7** Filter nicht beachtet: Liefert eine Scheibe Objekte, die mehr als ${dauer(c.full.filterToleranceMs)} vor oder nach ihrem Zeitraum geändert wurden, übernehmen wir nichts aus dieser Seite, brechen den Vollabgleich ab und gleichen die Quelle ${plural(c.full.incrementalOnlyDays, 'Tag', 'Tage')} lang nur mit Änderungsabgleichen ab.`,
    '- **FULL-8** Von Hand: Auch dann gelten das eigene Zeitfenster und der Mindestabstand der Quelle; sonst beginnt er sofort, auch tagsüber, und läuft zu Ende — in Zeitscheiben nur im Standardfenster.',
  );

  p('## Vor der Aufnahme eines Systems (ONB)');
  p(
    `- **ONB-1** Sondierung: Ob ein System für uns infrage kommt, prüfen wir mit höchstens ${plural(c.onboarding.probeMaxRequests, 'Anfrage', 'Anfragen')} je Kommune: robots.txt, Startseite und die üblichen Adressen einer OParl-Schnittstelle (Verweise auf der Startseite, dann ${aufzaehlung(c.onboarding.probePaths.map((x) => `\`${x}\``))}). Weiterleitungen und die robots.txt eines weiteren Servers zählen mit. Gesperrte Pfade fragen wir nicht an; ist die robots.txt nicht erreichbar, endet die Prüfung nach dieser einen Anfrage. Zwischen zwei Kommunen liegen zusätzlich ${dauer(c.onboarding.probePauseMs)} Pause.`,
    `- **ONB-2** Quellenanlage: Beim Anlegen einer Quelle rufen wir nach Prüfung der robots.txt das System und die Kommunenliste ab (höchstens ${plural(c.lists.bodyListMaxPages, 'Seite', 'Seiten')}), im selben Takt.`,
    '- **ONB-3** Neue Quellen sind inaktiv, wenn unsere Werkzeuge sie anlegen (`ingestor sources add`, ein Abgleich von Hand mit einer noch unbekannten Adresse). Regelmäßig abgefragt wird eine Quelle erst, wenn sie aktiv ist. Aktiv legt sie nur `ingestor sources import --activate` an — und auch das nur, wenn dabei das System gelesen werden konnte. Vorhandene Quellen behalten ihren Status.',
    '- **ONB-4** Neue Kommunen bleiben ungelistet, bis wir sie listen (`ingestor bodies list <slug>`). Bis dahin erscheinen sie in keiner öffentlichen Liste. Abgerufen werden ihre Daten und Dateien trotzdem, solange die Quelle aktiv ist; nur abgelegt werden ihre Dokumente beim Abgleich nicht. Eine Kommune heißt bei uns mit einem Kürzel (Slug) aus ihrem Kurznamen, sonst ihrem Namen: klein geschrieben, ä → ae, ö → oe, ü → ue, ß → ss, alles andere außer Buchstaben und Ziffern → `-`, innerhalb einer Quelle eindeutig.',
  );

  p('## Dokumente (DOC)');
  p(
    '- **DOC-1** Dateien laden wir unter den Regeln oben: robots.txt, Takt je Server, Weiterleitungen. Für einzelne Quellen schalten wir den Dateiabruf ganz ab; dann lädt keine unserer Funktionen eine Datei dieser Quelle.',
    `- **DOC-2** Texterkennung: Jede neu erfasste Datei, deren Text fehlt, laden wir einmal herunter, je Kommune und Lauf höchstens ${zahl(c.documents.textMaxFilesPerBody)} Dateien, bis ${groesse(c.documents.textMaxFileBytes)} je Datei. Das Lesen des Textes ist begrenzt (höchstens ${dauer(c.documents.textTimeoutMs)}, ${zahl(c.documents.textMaxPages)} Seiten und ${groesse(c.documents.textMaxGrowthBytes)} Arbeitsspeicher je Datei); misslingt es, versuchen wir es nach ${aufzaehlung(c.documents.textRetryLadderMs.map((ms) => dauer(ms)))} erneut, immer aus unserer gespeicherten Kopie — die Datei laden wir dafür nicht noch einmal herunter.`,
    `- **DOC-3** Dokument-Cache: stündlich höchstens ${zahl(c.documents.cacheMaxFilesPerRun)} Dateien, je Quelle höchstens ${zahl(c.documents.cacheMaxFilesPerSource)}, bis ${groesse(c.documents.cacheMaxFileBytes)} je Datei.`,
    `- **DOC-4** Nach Zeitüberschreitung, Verbindungsfehler, leerer Antwort, 429, 5xx oder nicht erreichbarer robots.txt versuchen wir es nach ${aufzaehlung(c.documents.retryLadderMs.map((ms) => dauer(ms)))} erneut; danach und bei anderen Fehlern (auch HTTP 403) alle ${dauer(c.documents.retryWeeklyMs)}, ohne Obergrenze.`,
    `- **DOC-5** Die Versuche enden, wenn die robots.txt die Datei sperrt, die Quelle statt der Datei eine HTML-Seite liefert (Bot-Schutz), die Datei größer als ${groesse(c.documents.cacheMaxFileBytes)} ist, sie mit HTTP 404 oder 410 nicht mehr vorhanden ist (dann übernimmt der Löschabgleich) oder die Quelle bzw. ihr Dateiabruf abgeschaltet wird. HTTP 404 oder 410 in den ersten ${dauer(c.documents.goneProvisionalMs, 'dativ')} nach unserer Erfassung gilt als vorläufig, weil Quellen das Objekt oft vor der Datei veröffentlichen.`,
    '- **DOC-6** Gesperrt per robots.txt oder Bot-Schutz: Diese Datei laden wir erst wieder, nachdem wir sie nach Prüfung freigegeben haben. Zugangsprüfungen umgehen wir nie.',
    '- **DOC-7** Dokumente ungelisteter Kommunen (ONB-4) legt der Abgleich nicht ab.',
  );

  p('## Löschabgleich (DEL), stündlich');
  p(
    `- **DEL-1** Dokumente, die die Quelle geändert hat, laden wir neu (höchstens ${zahl(c.deletion.maxRefetchesPerRun)} je Lauf) — mit \`If-None-Match\`/\`If-Modified-Since\`, wenn wir ETag oder Änderungsdatum kennen, sodass eine unveränderte Datei nur ein 304 kostet.`,
    `- **DEL-2** Stichproben per HEAD, nur bei öffentlich gelisteten Kommunen, höchstens ${zahl(c.deletion.samplesPerBody)} je Kommune und Lauf.`,
    `- **DEL-3** Dokumente, die mit 404 oder 410 verschwunden sind, prüfen wir nach ${aufzaehlung(c.deletion.recheckDays.slice(0, -1).map(zahl))} Tagen erneut; nach ${plural(c.deletion.recheckDays[c.deletion.recheckDays.length - 1] ?? Number.NaN, 'Tag', 'Tagen')} fragen wir sie vor dem Löschen noch einmal per GET an. Fehlen sie weiter, löschen wir Kopie und Text; sonst heben wir die Markierung auf. Was Sie löschen, verschwindet so auch bei uns.`,
    `- **DEL-4** Nach HTTP ${aufzaehlung(c.deletion.stopStatuses.map(zahl), 'oder')} oder nach ${plural(c.deletion.maxErrorsInRow, 'Fehler', 'Fehlern')} in Folge fragt der Lauf diesen Server nichts mehr. Melden in einem Lauf mehr als ${zahl(c.deletion.sourceRestNewGone)} Dokumente einer Quelle neu 404 oder 410, ruht die Quelle für diesen Lauf.`,
    '- **DEL-5** Vorschau und Löschabgleich richten sich nicht danach, ob die Quelle aktiv ist, sondern nur nach dem Dateiabruf (DOC-1) und der Schonung (ERR-6).',
  );

  p('## Vorschau (PRV)');
  p(
    `- **PRV-1** Öffnet jemand ein Dokument, das wir nicht abgelegt haben, laden wir es unter den Regeln oben bei der Quelle und warten dabei **insgesamt höchstens ${dauer(c.preview.maxWaitMs)}** auf einen freien Platz, die robots.txt und einen freien Zeitpunkt, Weiterleitungen eingeschlossen; sonst antworten wir mit HTTP 503 und der Bitte um einen neuen Versuch, statt den Takt zu überziehen.`,
    `- **PRV-2** Höchstens ${zahl(c.preview.concurrentPerProcess)} solche Abrufe gleichzeitig je Prozess und ${zahl(c.preview.perVisitor)} je Besucher-Adresse und ${c.preview.visitorWindowMs === MINUTE_MS ? 'Minute' : dauer(c.preview.visitorWindowMs)}.`,
    '- **PRV-3** Bei Kommunen, deren Dokumente wir ablegen (DOC-7), legen wir das Geladene ab; bei den übrigen fragt jedes Öffnen bei der Quelle an.',
    '- **PRV-4** Die Vorschau richtet sich nur nach dem Dateiabruf (DOC-1) und der Schonung (ERR-6), nicht danach, ob die Quelle aktiv ist; ist der Dateiabruf aus, verweist sie auf das Original.',
  );

  p('## Personenfotos (PHO)');
  p(
    `- **PHO-1** Montags um ${uhr(c.photos.weekdayHour)} Uhr, nur für Kommunen, für die wir ein Muster für Fotoadressen hinterlegt haben; höchstens ${zahl(c.photos.maxPersonsPerBody)} Personen je Kommune und Lauf, nur Fotos, die noch nie oder vor mehr als ${dauer(c.photos.recheckMs, 'dativ')} geprüft wurden. Zwischen zwei Fotos liegen ${dauer(c.photos.pauseMs)} Pause, dazu gilt der Takt je Server.`,
    `- **PHO-2** Ein fehlendes Foto oder ein Fehler wird vermerkt und frühestens nach ${dauer(c.photos.recheckMs, 'dativ')} wieder angefragt. Ist die robots.txt nicht erreichbar, vermerken wir nichts; der nächste Lauf versucht es erneut.`,
    '- **PHO-3** Ist die Quelle abgeschaltet, ihr Dateiabruf aus oder wird sie gerade geschont, laden wir keine Fotos und vermerken nichts.',
  );

  p('## Fehler und Schonung (ERR)');
  p(
    `- **ERR-1** Im Abgleich nach Netzfehler, Zeitüberschreitung (keine Antwort nach ${dauer(c.errors.listTimeoutMs)}) oder 5xx höchstens ${plural(c.errors.apiAttempts, 'Versuch', 'Versuche')}, mit Pausen von ${aufzaehlung(c.errors.retryPausesMs.map((ms) => dauer(ms)))}, jeder Versuch im Takt. HTTP 403, 404, 429 und andere 4xx wiederholen wir in diesem Lauf nicht. Für Dateien gilt DOC-4.`,
    `- **ERR-2** Schutzschalter: Nach ${plural(c.errors.breakerFailures, 'Fehlversuch', 'Fehlversuchen')} an einen Server im Lauf einer Quelle stellen wir ${dauer(c.errors.breakerOpenMs)} lang keine Anfragen an diesen Server. HTTP 404 zählt dabei nicht.`,
    `- **ERR-3** ${plural(c.errors.serverErrorSeries, 'Serverfehler', 'Serverfehler')} in Folge an einem Server gelten als Störung (5xx-Serie).`,
    `- **ERR-4** Ab dem ${zahl(c.errors.ladder.fromFailedRun)}. fehlgeschlagenen Lauf einer Quelle in Folge pausiert der Abgleich ${plural(c.errors.ladder.firstPauseMinutes, 'Minute', 'Minuten')}, danach je weiterem Fehlversuch ${c.errors.ladder.factor === 2 ? 'doppelt' : `${zahl(c.errors.ladder.factor)}-mal`} so lang, höchstens ${dauer(c.errors.ladder.maxPauseMinutes * MINUTE_MS)} (${ladder.map(zahl).join(', ')} Minuten).`,
    `- **ERR-5** Beim ersten Mal schon: mindestens ${plural(f.uaBlocked, 'Minute', 'Minuten')}, wenn ein Server unseren User-Agent sperrt (ID-4); ${plural(f.serverErrorSeries, 'Minute', 'Minuten')} bei einer 5xx-Serie, ${plural(f.robotsUnreachable, 'Minute', 'Minuten')} bei nicht erreichbarer robots.txt; ${dauer(f.robotsForbidsAll * MINUTE_MS)}, wenn die robots.txt keine Anfrage zulässt (ROB-8). Ist die Pause aus ERR-4 länger, gilt sie.`,
    `- **ERR-6** Dokument-Cache, Vorschau, Löschabgleich und Personenfotos ruhen für eine Quelle ab ihrem ${zahl(c.errors.documentsRestFromFailedRun)}. fehlgeschlagenen Abgleich in Folge, bis ein Lauf wieder gelingt. Die robots.txt beachten sie unabhängig davon bei jedem Abruf.`,
    '- **ERR-7** Eine abgeschaltete (inaktive) Quelle gleichen wir nicht ab. Sollen bei Ihrem System gar keine Abrufe mehr stattfinden, schalten wir zusätzlich den Dateiabruf ab (DEL-5, PRV-4).',
    '- Eine Sperre unseres User-Agents umgehen wir nicht; wir versuchen es nur in den genannten Abständen wieder.',
  );

  p('## Opt-out und Takedown (OPT)');
  p(
    `- **OPT-1** Eine Gruppe für \`${c.identity.productToken}\` in Ihrer robots.txt wirkt spätestens nach ${dauer(c.robots.cacheTtlMs)} (ROB-5), ohne dass wir etwas tun müssen, für alle Abrufe (ROB-4).`,
    '- **OPT-2** Tombstone: Als gelöscht markierte Objekte verschwinden sofort aus allen Ausgaben (Spiegel-Listen, Exporte, Schnittstellen), bleiben aber für Prüfzwecke erhalten. Wir markieren eine ganze Kommune (`ingestor tombstone --body <slug>`, sie wird dabei auch ungelistet) oder einzelne Objekte samt der in ihnen eingebetteten (`ingestor tombstone --ids <id,…>`).',
    '- **OPT-3** Physische Löschung auf ausdrückliche Aufforderung der Kommune, einschließlich der extrahierten Texte und unserer Dateikopien: `ingestor purge-deleted --body <slug>` zeigt, was gelöscht würde (Objekte je Art, Dateikopien, Texte); erst `--yes` löscht. Untergeordnete Objekte gehen zuerst, die Kommune zuletzt; wird ein Lauf unterbrochen, beendet ihn der nächste.',
    `- **OPT-4** Je Quelle können wir den Abstand erhöhen (bis ${plural(c.rate.maxSourceIntervalSeconds, 'Sekunde', 'Sekunden')}), je Tageszeit seltener abgleichen, ein Zeitfenster für den Vollabgleich setzen, einen Mindestabstand, Zeitscheiben, den Dateiabruf abschalten oder die Quelle abschalten. Liegen mehrere Quellen auf Ihrem Server, gilt die Änderung für alle.`,
    '- **OPT-5** Ein Takedown gilt, bis wir ihn ausdrücklich aufheben: Weder die physische Löschung noch ein späterer Abgleich, Dateiabruf, Löschabgleich, Fotoabruf oder eine Vorschau holt das Objekt, die Kommune oder ihre Dateien zurück — auch wenn der Takedown erfolgt, während ein Abgleich Ihrer Quelle läuft.',
  );

  const o = c.other;
  p('## Andere Abrufe (OTH)');
  p(
    'Diese Abrufe gehen nicht an Ratsinformationssysteme, sondern an Geodienste und Streaming-Anbieter.',
    '',
    `- **OTH-1** Sie melden sich mit derselben Kennung wie unsere Abrufe bei Ratsinformationssystemen, fest als \`${c.identity.otherFetchUserAgent}\`. Eine abweichende Kennung je Quelle oder Installation gibt es für sie nicht.`,
    `- **OTH-2** Sie halten einen eigenen Takt je Server ein, höchstens eine Anfrage ${o.intervalSeconds === 1 ? 'je Sekunde' : `alle ${plural(o.intervalSeconds, 'Sekunde', 'Sekunden')}`}, vor jeder Anfrage und vor jeder Weiterleitung. Der Takt nutzt denselben gemeinsamen Speicher wie die Abrufe bei Ratsinformationssystemen: Liegt ein Dienst auf dem Server eines Ratsinformationssystems, etwa das Geoportal einer Kommune, teilen sich beide den Takt. Haben wir für eine Quelle auf demselben Hostnamen einen größeren Abstand eingestellt, halten Geoportal-Abrufe und Live-Übertragungen ihn ebenfalls ein, auch wenn die Quelle abgeschaltet ist; ein geänderter Abstand wirkt dort spätestens nach ${dauer(c.rate.hostIntervalRefreshMs, 'dativ')}.`,
    `- **OTH-3** Die robots.txt werten diese Abrufe nicht aus, auch nicht bei Geoportalen von Kommunen: Sie durchsuchen keine Seiten, sondern fragen Schnittstellen ab, und es gelten die Nutzungsregeln des jeweiligen Dienstes. Eine Gruppe für \`${c.identity.productToken}\` in der robots.txt Ihres Geoportals stoppt den täglichen Abruf der Umringe von Bebauungsplänen also nicht. Möchten Sie ihn nicht, schreiben Sie an ${c.identity.contact}; wir schalten ihn dann getrennt ab (\`ingestor geo deactivate <id>\`), und eine abgeschaltete Geoquelle rufen wir nicht mehr ab. Ebenso schalten wir auf Wunsch die Abfrage einer Live-Übertragung getrennt ab (\`ingestor broadcasts deactivate <id>\`). Alle übrigen Schutzregeln gelten auch hier: nur öffentliche Adressen, auch bei jeder Weiterleitung (RED-2), Grenzen für Größe (${groesse(o.maxBytes)} je Antwort) und Zeit, \`Retry-After\` (RATE-8), Wiederholungen und Schutzschalter (ERR-1, ERR-2).`,
    `- **OTH-4** Die Umringe von Bebauungsplänen rufen wir täglich um ${String(o.geoRefreshHour).padStart(2, '0')}:${String(o.geoRefreshMinute).padStart(2, '0')} Uhr über OGC API Features oder WFS ab, höchstens ${zahl(o.geoMaxPages)} Seiten je Dienst und Lauf. Liefert ein Dienst, der Pläne hatte, eine leere Antwort, behalten wir den bisherigen Bestand und vermerken einen Fehler. Fehler vermerken wir als feste Texte ohne interne Einzelheiten, etwa ${aufzaehlung(
      o.geoErrorExamples.map((t) => `„${t}“`),
      'oder',
    )}. Ungültige Geometrien, Pläne weit außerhalb des Gemeindegebiets und Verweise, die nicht http(s) sind, übernehmen wir nicht; die Quellenangabe und Lizenz des Dienstes speichern wir mit.`,
    `- **OTH-5** Live-Übertragungen von Ratssitzungen fragen wir beim Streaming-Anbieter ab, aber nur rund um angesetzte Sitzungen des Gremiums: ab ${plural(c.broadcasts.leadMinutes, 'Minute', 'Minuten')} vor dem angesetzten Beginn bis zum angesetzten Ende, ohne angegebenes Ende bis ${plural(c.broadcasts.openEndHours, 'Stunde', 'Stunden')} nach Beginn; nie für abgesagte, gelöschte oder entfernte Sitzungen. Höchstens einmal je ${dauer(c.broadcasts.pollIntervalMs).replace(/^1 /, '')} und Übertragungsquelle, ${c.broadcasts.attemptsPerPoll === 1 ? 'mit einer einzigen Anfrage' : `mit höchstens ${zahl(c.broadcasts.attemptsPerPoll)} Anfragen`} (die nächste Abfrage ist die Wiederholung). Jede Übertragungsquelle lässt sich einzeln abschalten.`,
  );

  p('## Weitere Zusagen (B)');
  p(
    '- **B-1** Bedingte Anfragen (ETag, Last-Modified), wo wir dieselbe Adresse erneut abrufen: robots.txt, Dateien und Listenseiten, die sie anbieten.',
    `- **B-2** Wir beachten \`Retry-After\` (RATE-8) und \`Crawl-delay\` (ROB-10).`,
    '- **B-3** Wir verstellen die Kennung nie, wechseln keine Adressen und umgehen weder Anmeldung noch Captcha noch Sperre.',
    '- **B-4** Jedes gespiegelte Objekt vermerkt, woher es stammt und wann es abgerufen wurde.',
  );

  p('## Für Betreiber eigener Installationen');
  p(
    `- Setzen Sie \`INGESTOR_USER_AGENT\` (älterer Name \`SCRAPER_USER_AGENT\`) auf eine Kennung mit Ihrer Kontaktadresse, etwa \`${c.identity.productToken}/${c.version} (+https://ris.example.de/abruf/; it@example.de)\`. Regeln der robots.txt für \`${c.identity.productToken}\` gelten weiter, weil der Ingestor dieses Token immer zusätzlich prüft (ROB-3).`,
    `- Den gemeinsamen Takt über alle Funktionen gibt es nur mit Redis (Upstash), das alle Funktionen erreichen; ohne Redis gilt RATE-7. \`INGESTOR_INTERVAL\` setzt den Grundabstand werktags ${dayHours} Uhr (Standard ${plural(day, 'Minute', 'Minuten')}), \`INGESTOR_FULL_SYNC_HOUR\` den Beginn des Vollabgleichsfensters (Standard ${uhr(c.full.defaultHour)} Uhr), \`INGESTOR_MAX_CONCURRENT_SYNCS\` die Zahl gleichzeitiger Abgleiche (Standard ${zahl(c.cadence.maxConcurrentSyncs)}).`,
    '- Eine Quelle abzuschalten stoppt nicht alle Abrufe: Vorschau und Löschabgleich richten sich nach dem Dateiabruf. Sollen nach einem Opt-out gar keine Abrufe mehr stattfinden, schalten Sie auch den Dateiabruf ab (`ingestor sources set <id> fileFetching=false`). Das Betriebshandbuch (`docs/operations.md`) beschreibt jeden Schritt.',
  );
  return `${lines.join('\n').trimEnd()}\n`;
}
