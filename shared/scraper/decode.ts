import iconv from 'iconv-lite';

/**
 * Character encoding of council HTML pages (issue 8: "never mangle umlauts"). ALLRIS 3 serves raw
 * ISO-8859-1 bytes (with Windows-1252 characters such as „ – € in practice), SessionNet UTF-8; both
 * declare it more or less reliably in the Content-Type header, a `<meta charset>` / `http-equiv` tag or
 * an XML declaration. Order of evidence follows the HTML standard's sniffing (BOM, transport layer,
 * prescan of the first bytes), with one deliberate deviation: a declared UTF-8 that the bytes are not
 * (invalid sequences) gives way to the next piece of evidence, because a wrong header would otherwise
 * turn every "ü" into U+FFFD.
 *
 * Labels are resolved as the WHATWG Encoding Standard says (iso-8859-1, latin1 and us-ascii mean
 * windows-1252). The bytes are decoded by iconv-lite, not Node's `TextDecoder`: since Node 20.18.3 /
 * 22.13.0 its windows-1252 decoder takes a Latin-1 fast path and returns 0x80–0x9F as C1 control
 * characters instead of „ “ – € … (nodejs/node #56542, #60888). iconv-lite decodes the five bytes
 * windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) as U+FFFD.
 */

/** How far into the body a `<meta>` declaration is looked for (the standard says 1024; ALLRIS puts a
 * stylesheet link and an XML declaration first, so we are a little more generous). */
export const CHARSET_PRESCAN_BYTES = 4096;

export type CharsetSource = 'bom' | 'header' | 'meta' | 'xml-declaration' | 'utf8-valid' | 'fallback';

export interface DecodedPage {
  text: string;
  /** WHATWG encoding name actually used (`utf-8`, `windows-1252`, …). */
  charset: string;
  source: CharsetSource;
}

/** WHATWG name of a charset label, or undefined when Node's decoder does not know it. */
export function normaliseCharsetLabel(label: string | undefined): string | undefined {
  if (label === undefined) return undefined;
  const cleaned = label
    .trim()
    .replace(/^["']|["']$/g, '')
    .toLowerCase();
  if (cleaned === '') return undefined;
  try {
    return new TextDecoder(cleaned).encoding;
  } catch {
    return undefined;
  }
}

/** `charset` parameter of a Content-Type value (`text/html; Charset=ISO-8859-1`). */
export function charsetFromContentType(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  for (const part of contentType.split(';').slice(1)) {
    const [name, ...rest] = part.split('=');
    if (name?.trim().toLowerCase() === 'charset') return normaliseCharsetLabel(rest.join('='));
  }
  return undefined;
}

function bomCharset(body: Buffer): { charset: string; skip: number } | undefined {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf)
    return { charset: 'utf-8', skip: 3 };
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return { charset: 'utf-16be', skip: 2 };
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return { charset: 'utf-16le', skip: 2 };
  return undefined;
}

/**
 * Prescan of the first bytes for a declaration: `<meta charset=…>`, `<meta http-equiv="content-type"
 * content="…; charset=…">`, and the XML declaration's `encoding`. The head is read as Latin-1 (ASCII is
 * all that matters here); tags are matched one at a time, never the whole page.
 */
export function declaredCharsets(body: Buffer): { meta?: string; xml?: string } {
  const head = body.subarray(0, CHARSET_PRESCAN_BYTES).toString('latin1');
  const found: { meta?: string; xml?: string } = {};
  const xml = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i.exec(head);
  const xmlCharset = normaliseCharsetLabel(xml?.[1]);
  if (xmlCharset) found.xml = xmlCharset;
  const metaTag = /<meta\b[^>]*>/gi;
  for (let m = metaTag.exec(head); m !== null; m = metaTag.exec(head)) {
    const attributes = tagAttributes(m[0]);
    const charset =
      attributes.get('charset') !== undefined
        ? normaliseCharsetLabel(attributes.get('charset'))
        : attributes.get('http-equiv')?.toLowerCase() === 'content-type'
          ? charsetFromContentType(attributes.get('content'))
          : undefined;
    if (charset) {
      found.meta = charset;
      break;
    }
  }
  return found;
}

/** Attributes of one start tag, names lower-cased (one tag, never a page). */
function tagAttributes(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  const pattern = /([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>/]+))/g;
  for (let m = pattern.exec(tag); m !== null; m = pattern.exec(tag)) {
    const name = m[1]?.toLowerCase();
    if (name !== undefined && !attributes.has(name)) attributes.set(name, m[2] ?? m[3] ?? m[4] ?? '');
  }
  return attributes;
}

function decodeWith(body: Buffer, charset: string, fatal: boolean): string | undefined {
  // Single-byte and legacy multi-byte charsets through iconv-lite (right for windows-1252's 0x80–0x9F);
  // UTF-8 and UTF-16 through TextDecoder, whose `fatal` tells a wrong UTF-8 declaration apart.
  if (!charset.startsWith('utf-') && iconv.encodingExists(charset)) return iconv.decode(body, charset);
  try {
    return new TextDecoder(charset, { fatal, ignoreBOM: false }).decode(body);
  } catch {
    return undefined;
  }
}

/**
 * Decodes an HTML body. Candidates in order: BOM, Content-Type charset, `<meta>`, XML declaration;
 * the first that decodes the bytes without error wins (single-byte encodings always do). Without any
 * declaration: UTF-8 if the bytes are valid UTF-8, else Windows-1252 (the German RIS default).
 */
export function decodeHtml(body: Buffer, contentType?: string): DecodedPage {
  const bom = bomCharset(body);
  if (bom) {
    const text = decodeWith(body.subarray(bom.skip), bom.charset, false);
    if (text !== undefined) return { text, charset: bom.charset, source: 'bom' };
  }
  const declared = declaredCharsets(body);
  const candidates: { charset: string | undefined; source: CharsetSource }[] = [
    { charset: charsetFromContentType(contentType), source: 'header' },
    { charset: declared.meta, source: 'meta' },
    { charset: declared.xml, source: 'xml-declaration' },
  ];
  for (const { charset, source } of candidates) {
    if (charset === undefined) continue;
    // A page cannot really be UTF-16 when its declaration was readable as ASCII (HTML standard).
    const effective = charset.startsWith('utf-16') ? 'utf-8' : charset;
    const text = decodeWith(body, effective, effective === 'utf-8');
    if (text !== undefined) return { text, charset: effective, source };
  }
  const utf8 = decodeWith(body, 'utf-8', true);
  if (utf8 !== undefined) return { text: utf8, charset: 'utf-8', source: 'utf8-valid' };
  return { text: decodeWith(body, 'windows-1252', false) ?? '', charset: 'windows-1252', source: 'fallback' };
}
