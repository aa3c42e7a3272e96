//! What `#[derive_dataflow]` finds in a task fn's body, and the compile-time
//! check that binds it to a node's `reads:` / `writes:` (the `derived`
//! clause). Consts only: evaluated while the program compiles, never linked.

/// The accesses a task fn makes through its node, found by
/// `#[derive_dataflow]` (the signals' last path segments, each once).
pub struct Derived {
    /// The fn's name.
    pub task: &'static str,
    /// The signals it reads through its node (`node.reader(&SIG)`).
    pub reads: &'static [DerivedAccess],
    /// The signals it writes through its node (`node.publish(&SIG, v)`,
    /// `node.writer(&SIG)`).
    pub writes: &'static [DerivedAccess],
}

/// One signal a task fn's body reads or writes through its node.
pub struct DerivedAccess {
    /// The signal's name (the last segment of the path the body spells).
    pub name: &'static str,
    /// The error when the node's list leaves it out (it names the signal,
    /// the fn and the fix).
    pub unlisted: &'static str,
}

impl Derived {
    /// Whether the body reads (`write` false) or writes `name`.
    pub const fn has(&self, write: bool, name: &str) -> bool {
        let list = if write { self.writes } else { self.reads };
        let mut i = 0;
        while i < list.len() {
            if str_eq(list[i].name, name) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Fails const evaluation, naming the signal, if the body reads or
    /// writes a signal the node's `reads:` / `writes:` (`reads`, `writes`:
    /// their last segments) leave out.
    pub const fn check_listed(&self, reads: &[&str], writes: &[&str]) {
        check_side(self.reads, reads);
        check_side(self.writes, writes);
    }
}

const fn check_side(found: &[DerivedAccess], listed: &[&str]) {
    let mut i = 0;
    while i < found.len() {
        let mut j = 0;
        let mut seen = false;
        while j < listed.len() {
            seen |= str_eq(found[i].name, listed[j]);
            j += 1;
        }
        if !seen {
            panic!("{}", found[i].unlisted);
        }
        i += 1;
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
