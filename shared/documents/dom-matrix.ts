/**
 * A 2-D affine matrix with the part of the DOMMatrix interface pdfjs-dist touches outside rendering.
 *
 * Why: pdfjs's display layer creates a `DOMMatrix` at module load (a canvas constant). Node has no
 * DOMMatrix; pdfjs borrows one from the optional native `@napi-rs/canvas`, which is installed on a
 * developer machine but not inside the bundled Lambda (ARM, no node_modules). Text extraction
 * (DOC-2) never renders, so this small matrix is enough there; it is installed only when the
 * runtime has no DOMMatrix of its own.
 */
type Init = ArrayLike<number> | { a: number; b: number; c: number; d: number; e: number; f: number };
type Coefficients = readonly [number, number, number, number, number, number];

export class AffineMatrix {
  a = 1;
  b = 0;
  c = 0;
  d = 1;
  e = 0;
  f = 0;

  constructor(init?: Init) {
    if (init === undefined) return;
    if ('a' in init) {
      this.setValues([init.a, init.b, init.c, init.d, init.e, init.f]);
    } else if (init.length >= 6) {
      this.setValues([init[0] ?? 1, init[1] ?? 0, init[2] ?? 0, init[3] ?? 1, init[4] ?? 0, init[5] ?? 0]);
    }
  }

  get is2D(): boolean {
    return true;
  }

  get isIdentity(): boolean {
    return this.a === 1 && this.b === 0 && this.c === 0 && this.d === 1 && this.e === 0 && this.f === 0;
  }

  /** The six coefficients in DOMMatrix order (a, b, c, d, e, f), as one tuple. */
  private setValues([a, b, c, d, e, f]: Coefficients): this {
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    this.e = e;
    this.f = f;
    return this;
  }

  /** this = this × other */
  multiplySelf(other?: Init): this {
    const m = new AffineMatrix(other);
    return this.setValues([
      this.a * m.a + this.c * m.b,
      this.b * m.a + this.d * m.b,
      this.a * m.c + this.c * m.d,
      this.b * m.c + this.d * m.d,
      this.a * m.e + this.c * m.f + this.e,
      this.b * m.e + this.d * m.f + this.f,
    ]);
  }

  /** this = other × this */
  preMultiplySelf(other?: Init): this {
    const m = new AffineMatrix(other);
    const copy = new AffineMatrix(this);
    return this.setValues([m.a, m.b, m.c, m.d, m.e, m.f]).multiplySelf(copy);
  }

  translateSelf(tx = 0, ty = 0): this {
    return this.multiplySelf([1, 0, 0, 1, tx, ty]);
  }

  scaleSelf(sx = 1, sy = sx): this {
    return this.multiplySelf([sx, 0, 0, sy, 0, 0]);
  }

  invertSelf(): this {
    const det = this.a * this.d - this.b * this.c;
    if (det === 0)
      return this.setValues([Number.NaN, Number.NaN, Number.NaN, Number.NaN, Number.NaN, Number.NaN]);
    return this.setValues([
      this.d / det,
      -this.b / det,
      -this.c / det,
      this.a / det,
      (this.c * this.f - this.d * this.e) / det,
      (this.b * this.e - this.a * this.f) / det,
    ]);
  }

  multiply(other?: Init): AffineMatrix {
    return new AffineMatrix(this).multiplySelf(other);
  }

  translate(tx?: number, ty?: number): AffineMatrix {
    return new AffineMatrix(this).translateSelf(tx, ty);
  }

  scale(sx?: number, sy?: number): AffineMatrix {
    return new AffineMatrix(this).scaleSelf(sx, sy);
  }

  inverse(): AffineMatrix {
    return new AffineMatrix(this).invertSelf();
  }

  transformPoint(point: { x?: number; y?: number } = {}): { x: number; y: number; z: number; w: number } {
    const x = point.x ?? 0;
    const y = point.y ?? 0;
    return { x: this.a * x + this.c * y + this.e, y: this.b * x + this.d * y + this.f, z: 0, w: 1 };
  }
}

/** Installs the matrix as `globalThis.DOMMatrix` when the runtime has none. */
export function ensureDomMatrix(): void {
  const g = globalThis as { DOMMatrix?: unknown };
  if (g.DOMMatrix === undefined) g.DOMMatrix = AffineMatrix;
}
