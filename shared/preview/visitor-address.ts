/**
 * The visitor's address behind CloudFront (PRV-2): `CloudFront-Viewer-Address` is `<ip>:<port>` (IPv6
 * unbracketed), so the address is all before the last colon. Trusted because the Function URL admits
 * only CloudFront (AWS_IAM, origin access control), which sets the header itself. Without it (a direct
 * call, `ingestor serve`) the connection's own source address.
 */
export function visitorAddressOf(
  headers: Record<string, string | undefined> | undefined,
  sourceAddress: string,
): string {
  const viewer = headers?.['cloudfront-viewer-address'];
  if (viewer) {
    const colon = viewer.lastIndexOf(':');
    if (colon > 0) return viewer.slice(0, colon);
  }
  return sourceAddress;
}
