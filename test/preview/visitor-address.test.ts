import { describe, expect, it } from 'vitest';
import { visitorAddressOf } from '../../shared/preview';

/** PRV-2 behind CloudFront: the visitor is the viewer CloudFront names, not CloudFront's own address. */
describe('preview visitor address', () => {
  it('PRV-2: CloudFront-Viewer-Address without its port, IPv4 and IPv6', () => {
    expect(visitorAddressOf({ 'cloudfront-viewer-address': '198.51.100.7:46532' }, '130.176.1.1')).toBe(
      '198.51.100.7',
    );
    expect(visitorAddressOf({ 'cloudfront-viewer-address': '2001:db8::7:46532' }, '130.176.1.1')).toBe(
      '2001:db8::7',
    );
  });

  it('PRV-2: without the header (a direct call) the connection source address', () => {
    expect(visitorAddressOf({}, '130.176.1.1')).toBe('130.176.1.1');
    expect(visitorAddressOf(undefined, '130.176.1.1')).toBe('130.176.1.1');
  });
});
