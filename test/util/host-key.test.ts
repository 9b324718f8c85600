import { describe, expect, it } from 'vitest';
import { isIngestorError } from '../../shared/errors';
import { hostKey, hostKeyOrUndefined } from '../../shared/util';

// SPEC: "Server / host" = hostname, lower-cased, without port — one pace per host (RATE-1), as one
// robots.txt per host (ROB-5).
describe('hostKey', () => {
  it.each([
    ['https://RIS.example.de:443/', 'ris.example.de'],
    ['http://ris.example.de:8443/', 'ris.example.de'],
    ['http://ris.example.de/', 'ris.example.de'],
    ['HTTPS://Ris.Example.DE/oparl/v1/system?x=1#top', 'ris.example.de'],
    ['ris.example.de:8080', 'ris.example.de'],
    ['RIS.example.de.', 'ris.example.de'],
    ['https://ris.example.de./oparl/v1/system', 'ris.example.de'],
    ['  ris.example.de  ', 'ris.example.de'],
    ['https://user@ris.example.de/', 'ris.example.de'],
    ['https://www.köln.de/', 'www.xn--kln-sna.de'],
    ['http://[::1]:8080/', '[::1]'],
    ['127.0.0.1:3000', '127.0.0.1'],
  ])('%s → %s', (input, expected) => {
    expect(hostKey(input)).toBe(expected);
  });

  it('accepts URL objects', () => {
    expect(hostKey(new URL('https://RIS.example.de:8443/a'))).toBe('ris.example.de');
  });

  it.each(['', 'http://', 'http://exa mple.de/'])(
    'rejects %j with HOST_KEY_INVALID (and hostKeyOrUndefined gives undefined)',
    (input) => {
      const error = (() => {
        try {
          hostKey(input);
        } catch (e) {
          return e;
        }
      })();
      expect(isIngestorError(error, 'HOST_KEY_INVALID')).toBe(true);
      expect(hostKeyOrUndefined(input)).toBeUndefined();
    },
  );
});
