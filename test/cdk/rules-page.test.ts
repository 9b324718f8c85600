import { describe, expect, it } from 'vitest';
import { DOCUMENT_SCHEDULES } from '../../infra/stack';
import { PUBLISHED_ONLY } from '../../shared/docs/rules-constants';

// The rules page (docs/abrufregeln.md) states the photo schedule; the CDK stack schedules it.
describe('rules page and infra agree', () => {
  it('PHO-1: photos run Mondays at the published hour (Europe/Berlin)', () => {
    expect(DOCUMENT_SCHEDULES.photos).toMatchObject({
      weekDay: 'MON',
      hour: String(PUBLISHED_ONLY.photosWeekdayHour),
      minute: '0',
    });
  });
});
