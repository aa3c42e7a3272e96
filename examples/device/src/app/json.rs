//! A fixed-capacity JSON writer: the responses are built into a buffer on
//! the worker's stack, never on a heap. Overflow is reported, not truncated
//! silently: the caller answers 500 with a JSON error instead.

use core::fmt::Write;

/// Response body buffer.
pub struct Json<const N: usize> {
    pub buf: heapless::String<N>,
    pub overflow: bool,
}

impl<const N: usize> Json<N> {
    pub const fn new() -> Self {
        Self {
            buf: heapless::String::new(),
            overflow: false,
        }
    }

    /// Raw JSON text.
    pub fn raw(&mut self, s: &str) -> &mut Self {
        if self.buf.push_str(s).is_err() {
            self.overflow = true;
        }
        self
    }

    /// A JSON string, escaped.
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.raw("\"");
        for c in s.chars() {
            let r = match c {
                '"' => self.buf.push_str("\\\""),
                '\\' => self.buf.push_str("\\\\"),
                c if (c as u32) < 0x20 => write!(self.buf, "\\u{:04x}", c as u32).map_err(|_| ()),
                c => self.buf.push(c),
            };
            if r.is_err() {
                self.overflow = true;
            }
        }
        self.raw("\"")
    }

    /// A number.
    pub fn num(&mut self, n: impl core::fmt::Display) -> &mut Self {
        if write!(self.buf, "{n}").is_err() {
            self.overflow = true;
        }
        self
    }

    pub fn bool(&mut self, b: bool) -> &mut Self {
        self.raw(if b { "true" } else { "false" })
    }

    /// `"key":` (after a comma unless `first`).
    pub fn key(&mut self, first: bool, k: &str) -> &mut Self {
        if !first {
            self.raw(",");
        }
        self.str(k).raw(":")
    }
}

impl<const N: usize> Default for Json<N> {
    fn default() -> Self {
        Self::new()
    }
}
