import { IngestorError } from '../errors';
import type { AddressClass } from './address';

/**
 * RED-2 (1): the target resolved to (or is) an address the fetcher must not connect to. Permanent:
 * asking again will not make a private address public; an operator has to look at the source.
 */
export class AddressNotPublicError extends IngestorError {
  readonly hostname: string;
  readonly address: string;
  readonly addressClass: AddressClass;

  constructor(hostname: string, address: string, addressClass: AddressClass) {
    super(
      'ADDRESS_NOT_PUBLIC',
      hostname === address
        ? `refusing to connect to ${address} (${addressClass} address)`
        : `refusing to connect to ${hostname}: it resolves to ${address} (${addressClass} address)`,
      { retryable: false },
    );
    this.hostname = hostname;
    this.address = address;
    this.addressClass = addressClass;
  }
}
