/**
 * Finds the classic shapes of catastrophic backtracking in a regular expression (RE2 syntax): a
 * repeated group that can match the same text in more than one way, because it repeats a
 * repetition (`(a+)+`, `(\w+\s?)*`) or because two of its alternatives can start alike
 * (`(a|a)+`, `(\d|\w)*`). A backtracking engine tries every way, exponentially many; the checker
 * refuses them whatever engine evaluates the pattern. Approximate by design: alternatives that
 * start alike but then differ (`(ab|ac)+`) are refused as well; write them apart (`(a[bc])+`).
 */

type CharSet = 'any' | Array<[number, number]>;
type Atom = { kind: 'set'; set: CharSet } | { kind: 'group'; alt: Alt; text: string } | { kind: 'empty' };
interface Item { atom: Atom; min: number; max: number }
type Seq = Item[];
type Alt = Seq[];

const DIGIT: CharSet = [[48, 57]];
const WORD: CharSet = [[48, 57], [65, 90], [95, 95], [97, 122]];
const SPACE: CharSet = [[9, 10], [12, 13], [32, 32]];
const POSIX: Record<string, CharSet> = {
  alnum: [[48, 57], [65, 90], [97, 122]], alpha: [[65, 90], [97, 122]], digit: DIGIT, lower: [[97, 122]],
  upper: [[65, 90]], space: [[9, 13], [32, 32]], word: WORD, xdigit: [[48, 57], [65, 70], [97, 102]],
  blank: [[9, 9], [32, 32]], punct: [[33, 47], [58, 64], [91, 96], [123, 126]],
};
const ESCAPED_CHARS: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };

function fold(set: CharSet): CharSet {
  if (set === 'any' || set.some(([lo, hi]) => hi - lo > 256)) return set;
  const out: Array<[number, number]> = [...set];
  for (const [lo, hi] of set) {
    for (let c = lo; c <= hi; c++) {
      if (c >= 65 && c <= 90) out.push([c + 32, c + 32]);
      else if (c >= 97 && c <= 122) out.push([c - 32, c - 32]);
    }
  }
  return out;
}

const MAX_CODE = 0x10ffff;

function complement(set: CharSet): CharSet {
  if (set === 'any') return 'any';
  const sorted = [...set].sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= MAX_CODE) out.push([next, MAX_CODE]);
  return out;
}

function union(a: CharSet, b: CharSet): CharSet {
  return a === 'any' || b === 'any' ? 'any' : [...a, ...b];
}

function overlaps(a: CharSet, b: CharSet): boolean {
  if (a === 'any') return b === 'any' || b.length > 0;
  if (b === 'any') return a.length > 0;
  return a.some(([lo, hi]) => b.some(([l, h]) => lo <= h && l <= hi));
}

/** A small parser of RE2 syntax: enough structure for the checks below; RE2 itself validates the pattern. */
class PatternParser {
  private pos = 0;
  constructor(private readonly src: string) {}

  parse(): Alt {
    return this.alt(false);
  }

  private alt(insensitive: boolean): Alt {
    const state = { insensitive };
    const branches: Alt = [this.seq(state)];
    while (this.src[this.pos] === '|') {
      this.pos++;
      branches.push(this.seq(state));
    }
    return branches;
  }

  private seq(state: { insensitive: boolean }): Seq {
    const items: Seq = [];
    while (this.pos < this.src.length && this.src[this.pos] !== '|' && this.src[this.pos] !== ')') {
      const atom = this.atom(state);
      let item: Item = { atom, min: 1, max: 1 };
      for (let q = this.quantifier(); q; q = this.quantifier()) {
        item = item.min === 1 && item.max === 1 ? { atom, ...q } : { atom: { kind: 'group', alt: [[item]], text: '' }, ...q };
      }
      items.push(item);
    }
    return items;
  }

  private quantifier(): { min: number; max: number } | null {
    const c = this.src[this.pos];
    let q: { min: number; max: number } | null = null;
    if (c === '*') q = { min: 0, max: Infinity };
    else if (c === '+') q = { min: 1, max: Infinity };
    else if (c === '?') q = { min: 0, max: 1 };
    if (q) this.pos++;
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos, this.pos + 24));
      if (!m) return null;
      this.pos += m[0].length;
      const min = Number(m[1]);
      q = { min, max: m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]) };
    } else return null;
    if (this.src[this.pos] === '?') this.pos++;
    return q;
  }

  private atom(state: { insensitive: boolean }): Atom {
    const start = this.pos;
    const c = this.src[this.pos]!;
    if (c === '(') {
      this.pos++;
      let insensitive = state.insensitive;
      if (this.src[this.pos] === '?') {
        const flags = /^\?([imsU-]*)(\)|:)/.exec(this.src.slice(this.pos, this.pos + 16));
        if (flags) {
          const on = flags[1]!.split('-')[0]!.includes('i');
          const off = (flags[1]!.split('-')[1] ?? '').includes('i');
          const next = on ? true : off ? false : insensitive;
          this.pos += flags[0].length;
          if (flags[2] === ')') {
            state.insensitive = next;
            return { kind: 'empty' };
          }
          insensitive = next;
        } else {
          const name = /^\?P?<[^>]*>/.exec(this.src.slice(this.pos, this.pos + 128));
          this.pos += name ? name[0].length : 1;
        }
      }
      const alt = this.alt(insensitive);
      if (this.src[this.pos] === ')') this.pos++;
      return { kind: 'group', alt, text: this.src.slice(start, this.pos) };
    }
    if (c === '[') return this.set(this.charClass(), state.insensitive);
    this.pos++;
    if (c === '.') return { kind: 'set', set: 'any' };
    if (c === '^' || c === '$') return { kind: 'empty' };
    if (c === '\\') {
      const e = this.src[this.pos++] ?? '';
      if ('bBAz'.includes(e)) return { kind: 'empty' };
      if (e === 'Q') {
        const end = this.src.indexOf('\\E', this.pos);
        const text = this.src.slice(this.pos, end < 0 ? undefined : end);
        this.pos = end < 0 ? this.src.length : end + 2;
        if (text === '') return { kind: 'empty' };
        return { kind: 'group', alt: [[...text].map((ch) => ({ atom: this.set([[ch.codePointAt(0)!, ch.codePointAt(0)!]], state.insensitive), min: 1, max: 1 }))], text };
      }
      return this.set(this.escape(e), state.insensitive);
    }
    const code = this.src.codePointAt(start)!;
    this.pos = start + (code > 0xffff ? 2 : 1);
    return this.set([[code, code]], state.insensitive);
  }

  private set(set: CharSet, insensitive: boolean): Atom {
    return { kind: 'set', set: insensitive ? fold(set) : set };
  }

  /** The set an escape outside or inside a class stands for; 'any' when not worth knowing exactly. */
  private escape(e: string): CharSet {
    if (e === 'd') return DIGIT;
    if (e === 'w') return WORD;
    if (e === 's') return SPACE;
    if (e === 'D') return complement(DIGIT);
    if (e === 'W') return complement(WORD);
    if (e === 'S') return complement(SPACE);
    if (e === 'p' || e === 'P' || e === 'x') {
      if (this.src[this.pos] === '{') {
        const end = this.src.indexOf('}', this.pos);
        const body = this.src.slice(this.pos + 1, end < 0 ? undefined : end);
        this.pos = end < 0 ? this.src.length : end + 1;
        if (e === 'x' && /^[0-9a-fA-F]+$/.test(body)) return [[parseInt(body, 16), parseInt(body, 16)]];
      } else if (e === 'x') {
        const hex = this.src.slice(this.pos, this.pos + 2);
        this.pos += 2;
        if (/^[0-9a-fA-F]{2}$/.test(hex)) return [[parseInt(hex, 16), parseInt(hex, 16)]];
      } else this.pos++;
      return 'any';
    }
    if (e in ESCAPED_CHARS) return [[ESCAPED_CHARS[e]!, ESCAPED_CHARS[e]!]];
    if (/[A-Za-z0-9]/.test(e)) return 'any';
    const code = e.codePointAt(0) ?? 0;
    return [[code, code]];
  }

  private charClass(): CharSet {
    this.pos++;
    const negated = this.src[this.pos] === '^';
    if (negated) this.pos++;
    let set: CharSet = [];
    let first = true;
    while (this.pos < this.src.length && (this.src[this.pos] !== ']' || first)) {
      first = false;
      const posix = /^\[:(\^?)(\w+):\]/.exec(this.src.slice(this.pos, this.pos + 16));
      if (posix) {
        this.pos += posix[0].length;
        const named = POSIX[posix[2]!] ?? 'any';
        set = union(set, posix[1] ? complement(named) : named);
        continue;
      }
      const lo = this.classChar();
      if (lo === 'any' || !(this.src[this.pos] === '-' && this.src[this.pos + 1] !== ']' && this.pos + 1 < this.src.length)) {
        set = union(set, lo);
        continue;
      }
      this.pos++;
      const hi = this.classChar();
      set = union(set, hi === 'any' || lo.length !== 1 || hi.length !== 1 ? 'any' : [[lo[0]![0], hi[0]![1]]]);
    }
    this.pos++;
    return negated ? complement(set) : set;
  }

  private classChar(): CharSet {
    const c = this.src[this.pos]!;
    if (c === '\\') {
      this.pos++;
      return this.escape(this.src[this.pos++] ?? '');
    }
    const code = this.src.codePointAt(this.pos)!;
    this.pos += code > 0xffff ? 2 : 1;
    return [[code, code]];
  }
}

function nullableItem(item: Item): boolean {
  return item.min === 0 || nullableAtom(item.atom);
}

function nullableAtom(atom: Atom): boolean {
  return atom.kind === 'empty' || (atom.kind === 'group' && atom.alt.some((seq) => seq.every(nullableItem)));
}

function firstOfSeq(seq: Seq): CharSet {
  let set: CharSet = [];
  for (const item of seq) {
    set = union(set, firstOfAtom(item.atom));
    if (!nullableItem(item)) break;
  }
  return set;
}

function firstOfAtom(atom: Atom): CharSet {
  if (atom.kind === 'set') return atom.set;
  if (atom.kind === 'empty') return [];
  return atom.alt.reduce<CharSet>((set, seq) => union(set, firstOfSeq(seq)), []);
}

/** Whether the text an item matches can be a repetition on its own: all else around it may be empty. */
function looseRepetition(seq: Seq): boolean {
  return seq.some((item, i) => seq.every((other, j) => j === i || nullableItem(other)) && repeats(item));
}

function repeats(item: Item): boolean {
  if (item.max > 1) return true;
  return item.atom.kind === 'group' && item.atom.alt.some(looseRepetition);
}

/** Every character an atom may match. */
function charsOf(atom: Atom): CharSet {
  if (atom.kind === 'set') return atom.set;
  if (atom.kind === 'empty') return [];
  return atom.alt.flat().reduce<CharSet>((set, item) => union(set, charsOf(item.atom)), []);
}

/** A repetition followed, past optional items, by an item that can match the same characters: `x+x+`, `.*a`. */
function adjacentOverlap(seq: Seq): boolean {
  for (let i = 0; i < seq.length; i++) {
    if (seq[i]!.max <= 1) continue;
    const chars = charsOf(seq[i]!.atom);
    for (let j = i + 1; j < seq.length; j++) {
      if (overlaps(chars, firstOfAtom(seq[j]!.atom))) return true;
      if (!nullableItem(seq[j]!)) break;
    }
  }
  return false;
}

/** The alternatives of a group, those of a group that is a whole alternative included. */
function alternatives(alt: Alt): Seq[] {
  return alt.flatMap((seq) => (seq.length === 1 && seq[0]!.min === 1 && seq[0]!.max === 1 && seq[0]!.atom.kind === 'group' ? alternatives(seq[0]!.atom.alt) : [seq]));
}

function problemIn(alt: Alt): string | null {
  for (const seq of alt) {
    for (const item of seq) {
      if (item.atom.kind !== 'group') continue;
      if (item.max > 1) {
        const group = item.atom.text || 'a group';
        if (item.atom.alt.some(looseRepetition)) return `it repeats ${group}, which repeats on its own: the same text splits between the repetitions in many ways`;
        const branches = alternatives(item.atom.alt);
        if (branches.some(adjacentOverlap)) return `it repeats ${group}, in which a repetition is followed by what it can match itself: the same text splits in many ways`;
        for (let i = 0; i < branches.length; i++) {
          for (let j = i + 1; j < branches.length; j++) {
            const [a, b] = [branches[i]!, branches[j]!];
            if (a.every(nullableItem) || b.every(nullableItem)) return `it repeats ${group}, one of whose alternatives matches empty text: the same text matches in many ways`;
            if (overlaps(firstOfSeq(a), firstOfSeq(b))) {
              return `it repeats ${group}, whose alternatives can start with the same character: the same text matches in many ways`;
            }
          }
        }
      }
      const inner = problemIn(item.atom.alt);
      if (inner) return inner;
    }
  }
  return null;
}

/** Why the pattern can backtrack catastrophically, or null when it cannot in the shapes checked. */
export function ambiguousRepetition(pattern: string): string | null {
  return problemIn(new PatternParser(pattern).parse());
}
