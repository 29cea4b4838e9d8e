// A WWW-Authenticate parser written from the grammar of RFC 9110 §11.6.1 (with §5.6 for lists, tokens and quoted strings):
//
//   WWW-Authenticate = #challenge
//   challenge   = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//   auth-param  = token BWS "=" BWS ( token / quoted-string )
//   token68     = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
//   #element    = [ element ] *( OWS "," OWS [ element ] )    (empty list elements are allowed)
//
// It is a checker's parser, so it is strict where the RFC says MUST: it refuses a parameter named twice in one challenge
// (§11.2 "each parameter name MUST only occur once per challenge") and a header with no challenge at all (§11.6.1: a 401
// MUST carry at least one). A scheme alone (`Negotiate`) is a valid challenge. `Bearer error=` is, by the grammar, a token68.

export interface Challenge {
  /** The auth-scheme as written (compare case-insensitively, see findChallenge). */
  scheme: string;
  /** auth-params with names lowercased (they are case-insensitive) and quoted-strings unescaped. */
  params: Record<string, string>;
  token68?: string;
}

export class ChallengeParseError extends Error {
  override readonly name = 'ChallengeParseError';
  constructor(
    readonly reason: string,
    readonly header: string,
    readonly position: number,
  ) {
    super(`malformed WWW-Authenticate: ${reason} at position ${position} of ${JSON.stringify(header)}`);
  }
}

const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]+/y;
const TOKEN68 = /[A-Za-z0-9\-._~+/]+=*/y;
const OWS = /[ \t]*/y;
const SP = / +/y;

export function parseChallenges(header: string): Challenge[] {
  return new Parser(header).challenges();
}

/** The first challenge of `scheme`; auth-scheme names are case-insensitive (RFC 9110 §11.1). */
export function findChallenge(challenges: readonly Challenge[], scheme: string): Challenge | undefined {
  const wanted = scheme.toLowerCase();
  return challenges.find((c) => c.scheme.toLowerCase() === wanted);
}

class Parser {
  private pos = 0;
  constructor(private readonly text: string) {}

  challenges(): Challenge[] {
    const out: Challenge[] = [];
    for (;;) {
      this.ows();
      let separated = out.length === 0;
      while (this.peek() === ',') {
        this.pos++;
        separated = true;
        this.ows();
      }
      if (this.atEnd()) break;
      if (!separated) this.fail('expected "," between challenges');
      out.push(this.challenge());
    }
    if (out.length === 0) this.fail('no challenge');
    return out;
  }

  private challenge(): Challenge {
    const scheme = this.eat(TOKEN) ?? this.fail('expected an auth-scheme');
    const challenge: Challenge = { scheme, params: {} };
    // Without 1*SP the challenge is the scheme alone; whatever follows must be a list separator.
    if (this.eat(SP) === undefined) {
      const end = this.pos;
      this.ows();
      if (!this.atEnd() && this.peek() !== ',') this.fail('expected SP after the auth-scheme');
      this.pos = end;
      return challenge;
    }
    const token68 = this.token68();
    if (token68 !== undefined) challenge.token68 = token68;
    else this.authParams(challenge);
    return challenge;
  }

  /** A token68 stands alone: it must be followed by the end or the next list element. */
  private token68(): string | undefined {
    const start = this.pos;
    const value = this.eat(TOKEN68);
    if (value === undefined) return undefined;
    const end = this.pos;
    this.ows();
    if (this.atEnd() || this.peek() === ',') {
      this.pos = end;
      return value;
    }
    this.pos = start;
    return undefined;
  }

  /**
   * Reads `#auth-param`. An element that is not `token BWS "="` starts the next challenge, which must come after a comma;
   * the position is then rewound to that comma so that the list loop sees the separator.
   */
  private authParams(challenge: Challenge): void {
    let lastComma = -1;
    for (;;) {
      this.ows();
      if (this.atEnd()) return;
      if (this.peek() === ',') {
        lastComma = this.pos++;
        continue;
      }
      const start = this.pos;
      const name = this.eat(TOKEN);
      if (name !== undefined) {
        this.ows();
        if (this.peek() === '=') {
          this.pos++;
          this.ows();
          this.setParam(challenge, name.toLowerCase(), this.paramValue(), start);
          this.ows();
          if (!this.atEnd() && this.peek() !== ',') this.fail('expected "," after an auth-param');
          continue;
        }
      }
      this.pos = start;
      if (lastComma < 0) this.fail('expected a token68 or an auth-param after the auth-scheme');
      this.pos = lastComma;
      return;
    }
  }

  private setParam(challenge: Challenge, name: string, value: string, at: number): void {
    if (Object.hasOwn(challenge.params, name)) {
      this.pos = at;
      this.fail(`auth-param "${name}" repeated in one challenge`);
    }
    // defineProperty, so that a parameter named __proto__ stays an ordinary member.
    Object.defineProperty(challenge.params, name, { value, enumerable: true, writable: true, configurable: true });
  }

  private paramValue(): string {
    if (this.peek() === '"') return this.quotedString();
    return this.eat(TOKEN) ?? this.fail('auth-param without a value');
  }

  /** quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE (RFC 9110 §5.6.4); returns the unescaped content. */
  private quotedString(): string {
    const open = this.pos++;
    let value = '';
    for (;;) {
      if (this.atEnd()) {
        this.pos = open;
        this.fail('unterminated quoted-string');
      }
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x22) {
        this.pos++;
        return value;
      }
      if (c === 0x5c) {
        const escaped = this.text.charCodeAt(this.pos + 1);
        if (Number.isNaN(escaped)) {
          this.pos = open;
          this.fail('unterminated quoted-string');
        }
        this.pos++;
        // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
        if (!(escaped === 0x09 || (escaped >= 0x20 && escaped <= 0x7e) || (escaped >= 0x80 && escaped <= 0xff)))
          this.fail('invalid quoted-pair');
        value += this.text[this.pos++];
        continue;
      }
      // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
      if (!(c === 0x09 || (c >= 0x20 && c <= 0x7e) || (c >= 0x80 && c <= 0xff))) this.fail('invalid character in quoted-string');
      value += this.text[this.pos++];
    }
  }

  private eat(re: RegExp): string | undefined {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (!m || m[0] === '') return undefined;
    this.pos = re.lastIndex;
    return m[0];
  }

  private ows(): void {
    OWS.lastIndex = this.pos;
    OWS.exec(this.text);
    this.pos = OWS.lastIndex;
  }

  private peek(): string | undefined {
    return this.text[this.pos];
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  private fail(reason: string): never {
    throw new ChallengeParseError(reason, this.text, this.pos);
  }
}
