//! Decoding the text of upstream deltas so that a character split across events stays one
//! character. A JSON string may end in the first half of a UTF-16 surrogate pair (`"\ud83d"`)
//! whose second half opens the next event; a strict JSON parser refuses both halves. The
//! decoder keeps the pending half and joins it with the next delta; a half that never finds
//! its partner becomes U+FFFD.

/// Decodes delta strings of one stream in order.
#[derive(Debug, Default, Clone)]
pub struct DeltaText {
    /// A high surrogate that ended the previous delta.
    carry: Option<u16>,
}

impl DeltaText {
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes one JSON string literal (with its quotes, as found in the event); `None` when it
    /// is not a string literal.
    pub fn decode(&mut self, literal: &str) -> Option<String> {
        let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
        let mut out = String::with_capacity(inner.len());
        let mut rest = inner;
        while let Some(at) = rest.find('\\') {
            if at > 0 {
                self.flush_carry(&mut out);
                out.push_str(&rest[..at]);
            }
            let (consumed, unit) = escape(&rest[at + 1..])?;
            rest = &rest[at + 1 + consumed..];
            match unit {
                Escape::Char(c) => {
                    self.flush_carry(&mut out);
                    out.push(c);
                }
                Escape::Unit(unit) => self.push_unit(unit, &mut out),
            }
        }
        if !rest.is_empty() {
            self.flush_carry(&mut out);
            out.push_str(rest);
        }
        Some(out)
    }

    /// The end of the stream: a pending half surrogate becomes U+FFFD.
    pub fn finish(&mut self) -> String {
        self.carry.take().map(|_| char::REPLACEMENT_CHARACTER.to_string()).unwrap_or_default()
    }

    fn push_unit(&mut self, unit: u16, out: &mut String) {
        match (self.carry.take(), unit) {
            (Some(high), 0xDC00..=0xDFFF) => {
                let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
            (carry, 0xD800..=0xDBFF) => {
                if carry.is_some() {
                    out.push(char::REPLACEMENT_CHARACTER);
                }
                self.carry = Some(unit);
            }
            (carry, _) => {
                if carry.is_some() {
                    out.push(char::REPLACEMENT_CHARACTER);
                }
                out.push(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        }
    }

    fn flush_carry(&mut self, out: &mut String) {
        if self.carry.take().is_some() {
            out.push(char::REPLACEMENT_CHARACTER);
        }
    }
}

enum Escape {
    Char(char),
    Unit(u16),
}

/// One escape after its backslash: how many bytes it used and what it stands for.
fn escape(rest: &str) -> Option<(usize, Escape)> {
    let c = match rest.as_bytes().first()? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let hex = rest.get(1..5)?;
            return Some((5, Escape::Unit(u16::from_str_radix(hex, 16).ok()?)));
        }
        _ => return None,
    };
    Some((1, Escape::Char(c)))
}
