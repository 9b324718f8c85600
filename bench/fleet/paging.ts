import { SOURCE_STARVED_DATAPOINTS } from '../../shared/observability';
import type { Starvation, StarvedSource } from '../../shared/planner';
import { isoOfMs, toBerlin } from '../../shared/schedule';

const PERIOD_MS = 5 * 60_000;
const HOUR_MS = 60 * 60_000;
/** The alarms' evaluation window: the last three 5-minute periods (infra/observability.ts). */
const EVALUATION_PERIODS = 3;
const MONTH_DAYS = 365.25 / 12;

/** Hours an alarm is in ALARM over the measured span, and scaled to a month. */
export interface PagingFigure {
  hours: number;
  hoursPerMonth: number;
}

export interface PagingHours {
  /** Before: HostSaturated — `SaturatedHosts`' minimum over a clock hour ≥ 1 (some host saturated all hour). */
  hostSaturated: PagingFigure;
  /** After: SourceStarved — `StarvedSources`' 5-minute maximum ≥ 1 in 2 of the last 3 periods. */
  sourceStarved: PagingFigure;
  /** Ticks with at least one starved source (`starvationOf`), and the most at one tick. */
  ticksWithStarved: number;
  mostStarved: number;
  /** The most minutes any due source was past its stretched turn at a tick (how close to starving). */
  longestOverdueMinutes: number;
  /** SourceStarved's hours in ALARM by local (Europe/Berlin) hour of the day: when it would page. */
  sourceStarvedByLocalHour: number[];
  /** The tick with the most starved sources: when, and its most overdue ones (what would be paged). */
  worst: { at: string; starved: StarvedSource[] } | null;
  /**
   * Each span SourceStarved is in ALARM (consecutive alarm periods): when it began (local, Europe/Berlin),
   * how long, and per host the most sources starved at one tick, the most minutes past the turn and the
   * host's factor range — what on-call would have been paged for, to tell a planner gap from a host's
   * capacity.
   */
  episodes: PagingEpisode[];
}

export interface EpisodeHost {
  mostSources: number;
  longestOverdueMinutes: number;
  /** The source that was that long past its turn. */
  mostOverdue: string;
  stretch: [number, number];
}

export interface PagingEpisode {
  /** Local start of the first alarm period, e.g. "Sat 2026-12-05 00:05". */
  from: string;
  hours: number;
  hosts: Record<string, EpisodeHost>;
}

/**
 * The fleet bench's replay of on-call's RATE-9 alarms (issue 28 point 1): each tick's figures as the
 * planner writes them, each alarm evaluated as CloudWatch does with the statistic, period and datapoints
 * the stack synthesises (treat missing data as not breaching). Ticks are fed in time order.
 */
export class PagingReplay {
  private hourStartMs = Number.NaN;
  private hourMinSaturated = Number.POSITIVE_INFINITY;
  private saturatedHours = 0;
  private periodStartMs = Number.NaN;
  private periodMaxStarved = 0;
  private readonly lastPeriods: boolean[] = [];
  private starvedAlarmPeriods = 0;
  private ticksWithStarved = 0;
  private mostStarved = 0;
  private longestOverdueMinutes = 0;
  private periodLocalHour = 0;
  private readonly byLocalHour = new Array<number>(24).fill(0);
  private worst: PagingHours['worst'] = null;
  /** This period's starved sources by host (the most at one tick, the longest overdue, the factors). */
  private periodHosts: PagingEpisode['hosts'] = {};
  private readonly episodes: PagingEpisode[] = [];
  private openEpisode: PagingEpisode | null = null;
  private openPeriods = 0;

  /** One planner tick: its `SaturatedHosts` gauge and its `starvationOf` figure, at a local hour. */
  tick(nowMs: number, localHour: number, figures: { saturatedHosts: number; starvation: Starvation }): void {
    const hour = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
    if (hour !== this.hourStartMs) {
      this.closeHour();
      this.hourStartMs = hour;
      this.hourMinSaturated = Number.POSITIVE_INFINITY;
    }
    this.hourMinSaturated = Math.min(this.hourMinSaturated, figures.saturatedHosts);
    const period = Math.floor(nowMs / PERIOD_MS) * PERIOD_MS;
    if (period !== this.periodStartMs) {
      this.closePeriod();
      this.periodStartMs = period;
      this.periodMaxStarved = 0;
      this.periodLocalHour = localHour;
      this.periodHosts = {};
    }
    this.noteHosts(figures.starvation.starved);
    const starved = figures.starvation.starved.length;
    this.periodMaxStarved = Math.max(this.periodMaxStarved, starved);
    if (starved > 0) this.ticksWithStarved += 1;
    if (starved > this.mostStarved) {
      this.mostStarved = starved;
      this.worst = { at: new Date(nowMs).toISOString(), starved: figures.starvation.starved.slice(0, 3) };
    }
    this.longestOverdueMinutes = Math.max(
      this.longestOverdueMinutes,
      figures.starvation.longestOverdueMinutes,
    );
  }

  result(days: number): PagingHours {
    this.closeHour();
    this.closePeriod();
    this.hourStartMs = Number.NaN;
    this.periodStartMs = Number.NaN;
    const figure = (hours: number): PagingFigure => ({
      hours: round(hours),
      hoursPerMonth: round((hours * MONTH_DAYS) / days),
    });
    return {
      hostSaturated: figure(this.saturatedHours),
      sourceStarved: figure((this.starvedAlarmPeriods * PERIOD_MS) / HOUR_MS),
      ticksWithStarved: this.ticksWithStarved,
      mostStarved: this.mostStarved,
      longestOverdueMinutes: round(this.longestOverdueMinutes),
      sourceStarvedByLocalHour: this.byLocalHour.map((periods) => round((periods * PERIOD_MS) / HOUR_MS)),
      worst: this.worst,
      episodes: this.episodes,
    };
  }

  private noteHosts(starved: readonly StarvedSource[]): void {
    const atTick = new Map<string, number>();
    for (const s of starved) {
      atTick.set(s.host, (atTick.get(s.host) ?? 0) + 1);
      const h = this.periodHosts[s.host] ?? {
        mostSources: 0,
        longestOverdueMinutes: 0,
        mostOverdue: s.sourceId,
        stretch: [s.stretch, s.stretch],
      };
      if (s.overdueMinutes > h.longestOverdueMinutes) {
        h.longestOverdueMinutes = s.overdueMinutes;
        h.mostOverdue = s.sourceId;
      }
      h.stretch = [Math.min(h.stretch[0], s.stretch), Math.max(h.stretch[1], s.stretch)];
      this.periodHosts[s.host] = h;
    }
    for (const [host, n] of atTick) {
      const h = this.periodHosts[host];
      if (h !== undefined) h.mostSources = Math.max(h.mostSources, n);
    }
  }

  private closeHour(): void {
    if (Number.isNaN(this.hourStartMs)) return;
    if (this.hourMinSaturated >= 1 && Number.isFinite(this.hourMinSaturated)) this.saturatedHours += 1;
  }

  private closePeriod(): void {
    if (Number.isNaN(this.periodStartMs)) return;
    this.lastPeriods.push(this.periodMaxStarved >= 1);
    if (this.lastPeriods.length > EVALUATION_PERIODS) this.lastPeriods.shift();
    if (this.lastPeriods.filter(Boolean).length < SOURCE_STARVED_DATAPOINTS) {
      this.openEpisode = null;
      return;
    }
    this.noteEpisode();
    this.starvedAlarmPeriods += 1;
    this.byLocalHour[this.periodLocalHour] = (this.byLocalHour[this.periodLocalHour] ?? 0) + 1;
  }

  /** An alarm period: extends the open episode or opens one. */
  private noteEpisode(): void {
    let e = this.openEpisode;
    if (e === null) {
      this.openPeriods = 0;
      e = {
        from: toBerlin(isoOfMs(this.periodStartMs)).toFormat('ccc yyyy-MM-dd HH:mm'),
        hours: 0,
        hosts: {},
      };
      this.episodes.push(e);
      this.openEpisode = e;
    }
    this.openPeriods += 1;
    // From the count of periods: rounded at each period, 3 × 5 min added up to 0.24 h.
    e.hours = round((this.openPeriods * PERIOD_MS) / HOUR_MS);
    for (const [host, p] of Object.entries(this.periodHosts)) {
      const h = e.hosts[host];
      e.hosts[host] =
        h === undefined
          ? { ...p, stretch: [...p.stretch] }
          : {
              mostSources: Math.max(h.mostSources, p.mostSources),
              ...(p.longestOverdueMinutes > h.longestOverdueMinutes
                ? { longestOverdueMinutes: p.longestOverdueMinutes, mostOverdue: p.mostOverdue }
                : { longestOverdueMinutes: h.longestOverdueMinutes, mostOverdue: h.mostOverdue }),
              stretch: [Math.min(h.stretch[0], p.stretch[0]), Math.max(h.stretch[1], p.stretch[1])],
            };
    }
  }
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
